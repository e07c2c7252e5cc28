// Which workspace lies in which: the spawner masks by this in a sandbox, and the main thread tells a session's file
// tools to refuse the same paths, so bash and the file tools agree.

/** true when child is parent or lies below it (both absolute, normalized). */
export function isInside(parent: string, child: string): boolean {
  if (parent === "/") return true;
  return child === parent || child.startsWith(`${parent}/`);
}
