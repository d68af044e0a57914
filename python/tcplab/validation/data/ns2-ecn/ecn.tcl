# ns-2's ECN on the tcpVariants set-up (docs/ns2-profile.md, "ECN"), as
# python -m tcplab.validation.ns2ecn --run-ns2 runs it with ns-2 2.35 (Debian `ns2`):
#   ns ecn.tcl AGENT SINK SINGLEDUP "DROPLIST" DURATION OUT
# The tcpVariants topology and agent settings (README of data/ns2-tcpVariants), with ECN in
# the agent (ecn_ 1) and a RED queue with setbit_ on the bottleneck r1 -> k1 in place of the
# DropTail one, and a slow return path: k1 -> r1 at 25.6 kb/s (a 40-byte ACK takes 12.5 ms, more
# than the 10.4 ms of a data packet at r1) with room for 100 ACKs. ACKs then reach the sender
# spaced by the return link, not by r1's departures, so no packet reaches r1 at the instant r1
# starts sending a waiting one (over the tcpVariants links that happens at every ACK-clocked
# arrival, and ns-2's floating-point clock orders such a pair either way). RED is set so that no decision depends on its random draw: the average is the
# queue an arrival finds (q_weight_ 1), min 3 and max 5 packets, max_p 1 (linterm_ 1), no wait_,
# no gentle_, mark_p_ 1: an arrival finding 4 waiting packets (p_b = 0.5, p_a = 1) is marked if
# ECT, one finding 5 or more (p_b = 1) is dropped, one finding 3 (p_b = 0) passes.
# OUT gets the packet trace (trace-all, show_tcphdr_) and OUT.vars the sender's variables.
set agent [lindex $argv 0]; set sink [lindex $argv 1]; set sdup [lindex $argv 2]
set dl [lindex $argv 3]; set dur [lindex $argv 4]; set out [lindex $argv 5]
Agent/TCP set precisionReduce_ false
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set updated_rttvar_ false
Agent/TCP set minrto_ 1
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
Agent/TCP set singledup_ $sdup
Agent/TCP set ecn_ 1
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 3
Queue/RED set maxthresh_ 5
Queue/RED set linterm_ 1
Queue/RED set q_weight_ 1
Queue/RED set wait_ false
Queue/RED set gentle_ false
Queue/RED set setbit_ true
Queue/RED set use_mark_p_ true
Queue/RED set mark_p_ 1.0
Trace set show_tcphdr_ 1
set ns [new Simulator]
set f [open $out w]
$ns trace-all $f
set s1 [$ns node]; set s2 [$ns node]; set r1 [$ns node]; set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb 0ms DropTail
$ns duplex-link $s2 $r1 8Mb 0ms DropTail
$ns simplex-link $r1 $k1 800Kb 100ms RED
$ns simplex-link $k1 $r1 25.6Kb 100ms DropTail
$ns queue-limit $r1 $k1 8
$ns queue-limit $k1 $r1 100
set lossy [$ns link $r1 $k1]
set em [new ErrorModule Fid]
set unused [new ErrorModel/Periodic]
$unused unit pkt
$lossy errormodule $em
set el [new ErrorModel/List]
$el droplist $dl
$em insert $el
$em bind $el 1
set tcp [$ns create-connection $agent $s1 $sink $k1 1]
$tcp set window_ 28
set vf [open $out.vars w]
$tcp attach $vf
foreach v {cwnd_ ssthresh_ dupacks_ ack_ maxseq_ t_seqno_ backoff_ rtt_ srtt_ rttvar_} { $tcp trace $v }
set ftp [$tcp attach-app FTP]
$ns at 1.0 "$ftp start"
$ns at $dur "$ns flush-trace; close $f; close $vf; exit 0"
$ns run
