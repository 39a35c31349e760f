// Several GNU finds at once: a perl program splits rg's names among them and passes on whole records.
import { shellCommand } from '../shell-quote.js'

/**
 * At most this many finds run at once. Each stats its share of the names; rg and the tool need cores
 * of their own, and more finds than this are unmeasured (docs/design.md#glob-stats-on-every-core).
 */
export const MAX_FINDS = 4

/**
 * The probe's perl program, run as `perl -e PROGRAM -- FIND PERL`: when this process may run on two
 * cores or more (`Cpus_allowed_list`, which honours an affinity mask), it prints the `finds` answer
 * (`finds`, find's path, perl's, how many finds) and exits 0; otherwise it exits 1 and the probe
 * answers plain `find`. A perl that cannot run this is not used.
 */
export const FINDS_PROBE_PROGRAM = [
  'open(my $f, "<", "/proc/self/status") or exit 1;',
  'while (<$f>) {',
  '  next if !s/^Cpus_allowed_list:\\s*//;',
  '  chomp;',
  '  my $n = 0;',
  '  $n += /^(\\d+)-(\\d+)$/ ? $2 - $1 + 1 : 1 for split /,/;',
  '  exit 1 if $n < 2;',
  `  print "finds\\0$ARGV[0]\\0$ARGV[1]\\0", $n < ${MAX_FINDS} ? $n : ${MAX_FINDS};`,
  '  exit 0;',
  '}',
  'exit 1;',
].join('\n')

/**
 * The helper's perl program, run as `perl -e PROGRAM -- FIND COUNT` with rg's NUL-separated names on
 * stdin. It starts COUNT finds (`-files0-from -`), hands each block of whole names it reads to the find
 * with the least still to write, and passes on each find's output a whole record at a time (and its
 * stderr a whole line at a time), so records from different finds never mix. One select loop with
 * non-blocking writes to the finds: no pipe can fill while another waits. It exits with the worst of
 * the finds' statuses (128 + the signal for one killed), so a file a find could not stat is reported
 * as one find reports it; 126 when the loop itself fails, and 141 when its own output is closed.
 */
export const FINDS_PROGRAM = String.raw`use strict;
use Errno qw(EAGAIN);
use Fcntl qw(F_SETFL O_NONBLOCK);
my ($find, $count) = @ARGV;
my $BLOCK = 65536;
sub fail { syswrite(STDERR, "dsh glob: $_[0]\n"); exit 126 }
my @finds;
for (1 .. $count) {
  my ($in_r, $in_w, $out_r, $out_w, $err_r, $err_w);
  pipe($in_r, $in_w) && pipe($out_r, $out_w) && pipe($err_r, $err_w) or fail("pipe: $!");
  my $pid = fork;
  defined $pid or fail("fork: $!");
  if ($pid == 0) {
    open(STDIN, "<&", $in_r) && open(STDOUT, ">&", $out_w) && open(STDERR, ">&", $err_w) or exit 127;
    exec { $find } $find, "-files0-from", "-", "-maxdepth", "0", "-printf", q{%T@\t%p\0};
    exit 127;
  }
  fcntl($in_w, F_SETFL, O_NONBLOCK) or fail("fcntl: $!");
  push @finds, { pid => $pid, in => $in_w, out => $out_r, err => $err_r, todo => "", bout => "", berr => "" };
}
# Only now, so the finds keep the default: each ends at its first write once no one reads it.
$SIG{PIPE} = "IGNORE";
sub put {
  my ($to, $bytes) = @_;
  while (length $bytes) {
    my $n = syswrite($to, $bytes);
    exit 141 if !defined $n;
    substr($bytes, 0, $n, "");
  }
}
sub relay {
  my ($f, $which, $to, $end, $ready) = @_;
  my $fh = $f->{$which};
  return if !$fh || !vec($ready, fileno $fh, 1);
  my $buf = \$f->{"b$which"};
  my $n = sysread($fh, $$buf, $BLOCK, length $$buf);
  defined $n or fail("read: $!");
  if (!$n) { close $fh; $f->{$which} = undef }
  put($to, substr($$buf, 0, $n ? rindex($$buf, $end) + 1 : length $$buf, ""));
}
my ($names, $eof) = ("", 0);
while (grep { $_->{out} || $_->{err} } @finds) {
  my ($r, $w, $todo) = ("", "", 0);
  $todo += length $_->{todo} for @finds;
  vec($r, 0, 1) = 1 if !$eof && $todo < $BLOCK * @finds;
  for my $f (@finds) {
    vec($r, fileno $f->{out}, 1) = 1 if $f->{out};
    vec($r, fileno $f->{err}, 1) = 1 if $f->{err};
    vec($w, fileno $f->{in}, 1) = 1 if $f->{in} && length $f->{todo};
  }
  select($r, $w, undef, undef) >= 0 or fail("select: $!");
  if (vec($r, 0, 1)) {
    my $n = sysread(STDIN, $names, $BLOCK, length $names);
    defined $n or fail("read: $!");
    $eof = 1 if !$n;
    my $whole = substr($names, 0, $eof ? length $names : rindex($names, "\0") + 1, "");
    my ($least) = sort { length $a->{todo} <=> length $b->{todo} } grep { $_->{in} } @finds;
    $least->{todo} .= $whole if $least;
  }
  for my $f (@finds) {
    if ($f->{in} && vec($w, fileno $f->{in}, 1)) {
      my $n = syswrite($f->{in}, $f->{todo});
      if (defined $n) { substr($f->{todo}, 0, $n, "") }
      elsif ($! != EAGAIN) { $f->{todo} = ""; close $f->{in}; $f->{in} = undef }
    }
    if ($f->{in} && $eof && $f->{todo} eq "") { close $f->{in}; $f->{in} = undef }
    relay($f, "out", \*STDOUT, "\0", $r);
    relay($f, "err", \*STDERR, "\n", $r);
  }
}
my $status = 0;
for my $f (@finds) {
  waitpid($f->{pid}, 0);
  my $s = $? & 127 ? 128 + ($? & 127) : $? >> 8;
  $status = $s if $s > $status;
}
exit $status;
`

/**
 * The helper's command: perl running `count` finds, each program by absolute path. `PERL_BADLANG=0`
 * keeps perl from warning on stderr about a locale the executor lacks: a line there would read as a
 * file the helper could not stat.
 */
export function findsCommand({ find, perl, count }: { find: string; perl: string; count: number }): string {
  return `PERL_BADLANG=0 ${shellCommand([perl, '-e', FINDS_PROGRAM, '--', find, String(count)])}`
}
