// The exec helper: a bash loop that runs inside a session's long-lived sandbox and starts that session's commands, so
// a command costs a fork and an exec rather than a new set of namespaces and mounts.
//
// $1 is the sandbox's exec directory (bound read-write into the sandbox; the spawner creates ID.out there before it
// asks). Orders on stdin (see frameRun):
//   run ID N        then N bytes: the command, octal-escaped as printf %b reads it (see encodeCommand); it runs with
//                   bash -c, stdout and stderr into ID.out, stdin from /dev/null. Read with -N, which reads in bulk
//                   (a line is read one byte per read(2) from a socket: 5 ms for a 4 KB command)
//   kill PGID SIG   signal the process group of a running command, one line
// Reports on stdout, one per line (short lines: a pipe write of under PIPE_BUF bytes is atomic, so the wrappers of
// concurrent commands never interleave):
//   ready                       the sandbox is up
//   pid ID PGID                 the command runs in process group PGID (the sandbox's pid namespace)
//   exit ID STATUS [stuck]      the command's group is gone (STATUS as `wait` gives it: 128+n for signal n);
//                               "stuck": members were still there after the wait for them ended
//
// Each command is watched by a wrapper subshell that stays outside the command's group, so a kill of the group never
// silences its report. `set -m` in the wrapper gives the command a process group of its own. The helper's own stdin
// and stdout never reach a command; its shell variables are not exported.
export const EXEC_HELPER_SCRIPT = String.raw`
dir=$1
echo ready
while read -r op a b; do
  case $op in
    run)
      case $b in *[!0-9]*|'') exit 1 ;; esac
      LC_ALL=C IFS= read -r -N "$b" encoded || exit 1
      case $a in *[!a-z0-9-]*|'') continue ;; esac
      (
        exec 2>/dev/null
        printf -v cmd '%b' "$encoded"
        set -m
        bash -c "$cmd" </dev/null >"$dir/$a.out" 2>&1 &
        pid=$!
        echo "pid $a $pid"
        wait "$pid"
        status=$?
        kill -KILL -- "-$pid" 2>/dev/null
        tries=0
        while kill -0 -- "-$pid" 2>/dev/null; do
          tries=$((tries + 1))
          if [ "$tries" -gt 300 ]; then echo "exit $a $status stuck"; exit; fi
          kill -KILL -- "-$pid" 2>/dev/null
          sleep 0.01
        done
        echo "exit $a $status"
      ) &
      ;;
    kill)
      case $a in *[!0-9]*|'') continue ;; esac
      case $b in TERM|KILL) kill -s "$b" -- "-$a" 2>/dev/null ;; esac
      ;;
  esac
done
`;

/** A run order: its line, then the encoded command (bytes counted as LC_ALL=C counts them). */
export function frameRun(id: string, command: string): string {
  const encoded = encodeCommand(command);
  return `run ${id} ${Buffer.byteLength(encoded)}\n${encoded}`;
}

/**
 * The command with backslashes, whitespace and control characters as \0NNN octal escapes, which the helper's
 * `printf %b` turns back into the bytes they were (every other character passes through untouched): a NUL, which
 * `read` drops, can never shift the framing.
 */
export function encodeCommand(command: string): string {
  return command.replace(/[\\\x00-\x20\x7f]/g, (char) => `\\0${char.charCodeAt(0).toString(8).padStart(3, "0")}`);
}
