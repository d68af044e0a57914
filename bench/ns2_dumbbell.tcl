# ns-2 counterpart of tcplab's foundation benchmark (crates/tcplab-sim/benches/dumbbell.rs), for
# Debian's ns-2 2.35 (`apt-get install ns2`; the binary is `ns`).
#
#   ns bench/ns2_dumbbell.tcl FLOWS [DURATION_S]
#
# N bulk flows (one-way Agent/TCP/Reno, TCPSink/DelAck, FTP), each from its own sender over its
# own 1 Gbit/s, 1 ms duplex link to router r1; r1 -> r2 is a 100 Mbit/s, 20 ms bottleneck with
# a 100-packet DropTail queue; r2 -> each receiver over its own 1 Gbit/s, 1 ms link (access
# queues 1000 packets, tcplab's default). 1460-byte segments (1500 bytes on the wire with ns-2's
# 40-byte TCP/IP header), initial window 1, min RTO 1 s, 200 ms delayed-ACK timer, windows far
# above the path's (window_ 100000 packets), 30 s simulated. No trace files: the bottleneck's
# packets are counted by a queue monitor on r1 -> r2 (departures = packets serialized).
#
# Prints one line:  RESULT flows=N wall_s=W bottleneck_pkts=P drops=D
# where W is the wall time of `$ns run` alone (set-up excluded, as for tcplab and ns-3).

set n [lindex $argv 0]
set duration [expr {[llength $argv] > 1 ? [lindex $argv 1] : 30.0}]

set ns [new Simulator]

Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 1
Agent/TCP set minrto_ 1
Agent/TCPSink/DelAck set interval_ 0.2
Queue set limit_ 1000

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 100Mb 20ms DropTail
$ns queue-limit $r1 $r2 100
$ns queue-limit $r2 $r1 100
set qm [$ns monitor-queue $r1 $r2 ""]

for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 1Gb 1ms DropTail
    $ns duplex-link $r2 $d($i) 1Gb 1ms DropTail
    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/DelAck]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0.0 "$ftp($i) start"
}

proc finish {} {
    global ns qm n t0
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    puts "RESULT flows=$n wall_s=$wall bottleneck_pkts=[$qm set pdepartures_] drops=[$qm set pdrops_]"
    exit 0
}
$ns at $duration "finish"

set t0 [clock microseconds]
$ns run
