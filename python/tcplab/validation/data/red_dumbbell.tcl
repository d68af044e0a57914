# Issue #18's dumbbell in ns-2 2.35 (Debian `ns2`), as python -m tcplab.validation.red runs it:
#   ns red_dumbbell.tcl N DISC GENTLE SEED DURATION WARMUP
# N long-lived Sack1 flows (1000-byte segments + 42 header bytes, TCPSink/Sack1: an ACK per
# segment), access links 100 Mbit/s with one-way delays 1..5 ms spread evenly, receiver links
# 100 Mbit/s 1 ms, bottleneck r1 -> r2 10 Mbit/s 20 ms with DISC = red (packet mode, limit 100,
# thresh 5, maxthresh 15, linterm 10, q_weight 0.002, mean_pktsize 1000, gentle GENTLE, wait,
# no ECN) or droptail. Flows start uniformly in [0, 1] s. Prints one line of key=value over
# [WARMUP, DURATION]: goodput (bit/s), mean queue (packets, the queue monitor's integral), mean
# RED average (sampled every 1 ms), drops at the bottleneck.
set n [lindex $argv 0]; set disc [lindex $argv 1]; set gentle [lindex $argv 2]
set seed [lindex $argv 3]; set dur [lindex $argv 4]; set warm [lindex $argv 5]
global defaultRNG
$defaultRNG seed $seed
set startrng [new RNG]
$startrng seed [expr $seed + 1000]
Agent/TCP set packetSize_ 1000
Agent/TCP set tcpip_base_hdr_size_ 42
Agent/TCP set window_ 100000
# As tcplab's ns2 profile models the agent (and as the tcpVariants suite of `tcplab.ns2ref` sets
# it): RTT estimator without the 2006 precision changes; the rest are ns-2.35's defaults,
# written out: windowInit_ 2, singledup_ 1 (limited transmit), minrto_ 0.2, rtxcur_init_ 3,
# maxrto_ 60, tcpTick_ 0.01.
Agent/TCP set precisionReduce_ false
Agent/TCP set updated_rttvar_ false
Agent/TCP set windowInit_ 2
Agent/TCP set singledup_ 1
Agent/TCP set minrto_ 0.2
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set maxrto_ 60
Agent/TCP set tcpTick_ 0.01
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set mean_pktsize_ 1000
Queue/RED set gentle_ $gentle
Queue/RED set setbit_ false
set ns [new Simulator]
set r1 [$ns node]; set r2 [$ns node]
if {$disc == "red"} {
    $ns simplex-link $r1 $r2 10Mb 20ms RED
    $ns queue-limit $r1 $r2 100
} else {
    $ns simplex-link $r1 $r2 10Mb 20ms DropTail
    # ns-2's DropTail with limit L holds at most L - 1 waiting (drop-tail.cc: length + 1 >= qlim):
    # 101 holds 100, as tcplab's limit 100.
    $ns queue-limit $r1 $r2 101
}
$ns simplex-link $r2 $r1 10Mb 20ms DropTail
$ns queue-limit $r2 $r1 1000
set qmon [$ns monitor-queue $r1 $r2 "" 0.1]
set bq [[$ns link $r1 $r2] queue]
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]; set d($i) [$ns node]
    if {$n > 1} { set dl [expr 1.0 + 4.0 * $i / ($n - 1)] } else { set dl 1.0 }
    $ns duplex-link $s($i) $r1 100Mb ${dl}ms DropTail
    $ns queue-limit $s($i) $r1 1000
    $ns queue-limit $r1 $s($i) 1000
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    $ns queue-limit $r2 $d($i) 1000
    $ns queue-limit $d($i) $r2 1000
    set tcp($i) [$ns create-connection TCP/Sack1 $s($i) TCPSink/Sack1 $d($i) $i]
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [$startrng uniform 0 1] "$ftp($i) start"
}
set avgsum 0.0; set avgn 0
proc sample {} {
    global ns bq avgsum avgn disc
    if {$disc == "red"} { set avgsum [expr $avgsum + [$bq set ave_]] }
    incr avgn
    $ns at [expr [$ns now] + 0.001] "sample"
}
proc mark {} {
    global n tcp ack0 qsum0 drop0 qmon
    for {set i 0} {$i < $n} {incr i} { set ack0($i) [$tcp($i) set ack_] }
    set qsum0 [[$qmon get-pkts-integrator] set sum_]
    set drop0 [$qmon set pdrops_]
    sample
}
proc finish {} {
    global n tcp ack0 qsum0 drop0 qmon warm dur avgsum avgn
    set acked 0
    for {set i 0} {$i < $n} {incr i} { incr acked [expr [$tcp($i) set ack_] - $ack0($i)] }
    set span [expr $dur - $warm]
    set q [expr ([[$qmon get-pkts-integrator] set sum_] - $qsum0) / $span]
    puts "goodput=[expr $acked * 8000.0 / $span] mean_queue=$q mean_avg=[expr $avgsum / $avgn] drops=[expr [$qmon set pdrops_] - $drop0]"
    exit 0
}
$ns at $warm "mark"
$ns at $dur "finish"
$ns run
