// The exec helper: a program that runs inside a session's long-lived sandbox and starts that session's commands, so
// a command costs a fork and an exec rather than a new set of namespaces and mounts. Two of them speak the same
// protocol: a perl one where perl is installed (Debian's perl-base always is), a bash one otherwise.
//
// The last argument is the sandbox's exec directory (bound read-write into the sandbox; the spawner creates ID.out there before it
// asks). Orders on stdin (see frameRun):
//   run ID N        then N bytes: the command, octal-escaped as printf %b reads it (see encodeCommand); it runs in
//                   bash, stdout and stderr into ID.out, stdin from /dev/null, in a process group of its own. Read
//                   with -N, which reads in bulk (a line is read one byte per read(2) from a socket: slow for a long command)
//   kill PGID SIG   signal the process group of a running command, one line
// Reports on stdout, one per line (short lines: a pipe write of under PIPE_BUF bytes is atomic, so reports never
// interleave):
//   ready                       the sandbox is up
//   pid ID PGID                 the command runs in process group PGID (the sandbox's pid numbering)
//   exit ID STATUS [stuck]      the command's group is gone (STATUS as `wait` gives it: 128+n for signal n);
//                               "stuck": members were still there after the wait for them ended
// On the end of stdin a helper takes no more orders, reports the commands still running as they end, then exits.

/**
 * The perl helper keeps one bash started ahead (a spare, in a process group of its own, waiting on a pipe), so a
 * command costs neither a fork of the helper nor the exec and start-up of bash: on `run` the order goes down the
 * spare's pipe (ZYGOTE_SCRIPT takes it from there) and the next spare is started while the command runs. Each
 * command still gets a bash of its own ($$, exit and traps are its own). A command's end is seen on a pidfd
 * (pidfd_open, Linux 5.3), which select reports without the race a SIGCHLD has with it; where pidfd_open is refused
 * the loop polls every 10 ms while commands run.
 */
export const EXEC_HELPER_PERL = String.raw`
use strict;
use warnings;
my (undef, $zygote, $dir) = @ARGV;
$| = 1;
$SIG{PIPE} = 'IGNORE';
my (%running, %gone, $spare); # running: pid => [id, pidfd handle or undef]; gone: pgid => [id, status, tries]
sub start_spare {
  pipe(my $r, my $w) or return undef;
  my $pid = fork;
  return undef unless defined $pid;
  if ($pid == 0) {
    setpgrp(0, 0);
    $SIG{PIPE} = 'DEFAULT';
    fcntl($r, 2, 0); # F_SETFD: the order pipe survives the exec
    open(STDIN, '<', '/dev/null') && open(STDOUT, '>', '/dev/null') && open(STDERR, '>', '/dev/null') or exit 126;
    exec { '/bin/bash' } 'bash', '--norc', '-c', $zygote, 'bash', $dir, fileno($r);
    exit 127;
  }
  setpgrp($pid, $pid); # the group exists before the pid is reported, whichever of the two runs first
  close $r;
  return [$pid, $w];
}
sub hand_over {
  my ($order) = @_;
  my $z = $spare // start_spare() // return undef;
  $spare = undef;
  my ($pid, $w) = @$z;
  for (my $at = 0; $at < length $order;) {
    my $n = syswrite($w, $order, length($order) - $at, $at);
    if (!defined $n) { close $w; kill 'KILL', -$pid; waitpid($pid, 0); return undef; }
    $at += $n;
  }
  close $w;
  return $pid;
}
sub watch {
  my ($pid) = @_;
  my $fd = syscall(434, $pid, 0); # pidfd_open
  return undef if $fd < 0;
  open(my $handle, '<&=', $fd) or return undef;
  return $handle;
}
$spare = start_spare();
print "ready\n";
my ($in, $eof) = ('', 0);
for (;;) {
  for my $pid (keys %running) {
    next if waitpid($pid, 1) != $pid; # WNOHANG
    my ($id, $handle) = @{delete $running{$pid}};
    close $handle if $handle;
    $gone{$pid} = [$id, $? & 127 ? 128 + ($? & 127) : $? >> 8, 0];
    kill 'KILL', -$pid;
  }
  for my $pgid (keys %gone) {
    my $g = $gone{$pgid};
    if (!kill 0, -$pgid) { print "exit $g->[0] $g->[1]\n"; delete $gone{$pgid}; }
    elsif (++$g->[2] > 300) { print "exit $g->[0] $g->[1] stuck\n"; delete $gone{$pgid}; }
    else { kill 'KILL', -$pgid; }
  }
  $spare = undef if $spare && waitpid($spare->[0], 1) == $spare->[0];
  last if $eof && !%running && !%gone;
  my $rin = '';
  vec($rin, fileno(STDIN), 1) = 1 unless $eof;
  my $polling = %gone;
  for my $r (values %running) {
    if ($r->[1]) { vec($rin, fileno($r->[1]), 1) = 1; } else { $polling = 1; }
  }
  my $n = select(my $rout = $rin, undef, undef, $polling ? 0.01 : undef);
  next if $eof || $n <= 0 || !vec($rout, fileno(STDIN), 1);
  my $got = sysread(STDIN, $in, 65536, length $in);
  if (!$got) { $eof = 1; next; }
  while ($in =~ /\A([^\n]*)\n/) {
    my $line = $1;
    my ($op, $a, $b) = split / /, $line;
    $op //= '';
    if ($op eq 'run') {
      exit 1 unless defined $b && $b =~ /\A[0-9]+\z/;
      last if length($in) < length($line) + 1 + $b;
      my $order = substr($in, 0, length($line) + 1 + $b, '');
      next unless defined $a && $a =~ /\A[a-z0-9-]+\z/;
      my $pid = hand_over($order) // hand_over($order);
      if (!defined $pid) { print "exit $a 126\n"; next; }
      $running{$pid} = [$a, watch($pid)];
      print "pid $a $pid\n";
      $spare = start_spare();
    } else {
      substr($in, 0, length($line) + 1, '');
      kill $b, -$a if $op eq 'kill' && defined $a && $a =~ /\A[0-9]+\z/ && defined $b && ($b eq 'TERM' || $b eq 'KILL');
    }
  }
}
`;
/**
 * A spare bash of the perl helper: $1 the exec directory, $2 the pipe its order comes on. It takes the order, points
 * its output at ID.out, and runs the command with eval, having first dropped its own variables and arguments. One
 * line, so the command's line numbers (LINENO, "bash: line 1: ...") are what bash -c would give.
 */
export const ZYGOTE_SCRIPT = [
  `IFS=' ' read -r -u "$2" __ash_op __ash_id __ash_n || exit 125`,
  "case $__ash_id in *[!a-z0-9-]*|'') exit 125 ;; esac",
  "case $__ash_n in *[!0-9]*|'') exit 125 ;; esac",
  `LC_ALL=C IFS= read -r -u "$2" -N "$__ash_n" __ash_encoded || exit 125`,
  "__ash_fd=$2",
  `exec {__ash_fd}<&- >"$1/$__ash_id.out" 2>&1`,
  `printf -v __ash_cmd '%b' "$__ash_encoded"`,
  "set --",
  "BASH_EXECUTION_STRING=$__ash_cmd",
  `eval "unset __ash_op __ash_id __ash_n __ash_encoded __ash_fd __ash_cmd; $__ash_cmd"`,
].join("; ");

/**
 * The bash helper: each command is watched by a wrapper subshell that stays outside the command's group, so a kill
 * of the group never silences its report; `set -m` in the wrapper gives the command a process group of its own. The
 * helper's own stdin and stdout never reach a command; its shell variables are not exported.
 */
export const EXEC_HELPER_BASH = String.raw`
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

/** Each helper's argv; the exec directory last. --norc: bash reads ~/.bashrc when its stdin is a socket. */
export const HELPER_ARGV = {
  perl: (execDir: string) => ["perl", "-e", EXEC_HELPER_PERL, "exec-helper", ZYGOTE_SCRIPT, execDir],
  bash: (execDir: string) => ["bash", "--norc", "-c", EXEC_HELPER_BASH, "exec-helper", execDir],
};

/** The argv that starts the exec helper inside a sandbox: the perl one where the sandbox has perl, else the bash one. */
export function execHelperArgv(execDir: string): string[] {
  const bash = HELPER_ARGV.bash(execDir);
  const pick = `if command -v perl >/dev/null 2>&1; then shift ${bash.length}; else set -- ${bash.map((_, i) => `"$${i + 1}"`).join(" ")}; fi; exec "$@"`;
  return ["/bin/sh", "-c", pick, "exec-helper", ...bash, ...HELPER_ARGV.perl(execDir)];
}

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
