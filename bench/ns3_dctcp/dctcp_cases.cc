// ns-3 3.44 reference runs for tcplab's ECN / DCTCP validation (bench/ns3_dctcp.py builds this
// file against the `ns3` wheel and documents every parameter; bench/ns3_dctcp/README.md).
//
// --scenario=validation  the set-up of ns-3's examples/tcp/tcp-validation.cc (cases dctcp-10ms
//                        and dctcp-80ms), without its ping application
// --scenario=dumbbell    N DCTCP flows through one bottleneck: RED with min = max = K on the
//                        instantaneous queue (--aqm=red), or CoDel with a CE threshold
//                        (--aqm=codel)
// --scenario=fig17       the set-up of ns-3's examples/tcp/dctcp-example.cc (the DCTCP paper's
//                        Fig. 17 topology)
//
// Output: one line "RESULT {json}" on stdout; with --series=FILE a CSV time series.

#include "measure.h"
#include "cwr.h"
#include "echo.h"

namespace
{

// --recovery: "prr" (the cases as stated), or "classic", a counterfactual: TcpClassicRecovery
// sets cwnd to ssthresh at once when an ECE enters CWR, where PRR lowers it over the round trip;
// or "linux-cwr" (-bytes), another: PRR in CWR as Linux's tcp_cwnd_reduction; "ns3-cwr": TcpPrrRecovery's
// CWR restated, and "ns3-cwr-entry-once", the same with the entering ACK counted once (cwr.h).
std::string g_recovery = "prr";

TypeId
RecoveryTypeId()
{
    if (g_recovery == "classic")
    {
        return TcpClassicRecovery::GetTypeId();
    }
    if (g_recovery == "ns3-cwr" || g_recovery == "ns3-cwr-entry-once")
    {
        g_ns3CwrEntryOnce = g_recovery == "ns3-cwr-entry-once";
        return TcpNs3CwrRecovery::GetTypeId();
    }
    if (g_recovery == "linux-cwr" || g_recovery == "linux-cwr-bytes")
    {
        g_linuxCwrBytes = g_recovery == "linux-cwr-bytes";
        return TcpLinuxCwrRecovery::GetTypeId();
    }
    return TcpPrrRecovery::GetTypeId();
}

// --noBql: validation only, a counterfactual: the bottleneck's device ring without Dynamic Queue
// Limits, a plain 3-packet DropTail that stops the queue disc only when full (as tcplab's
// `device_queue = 3`). The other devices keep theirs (their links never queue).
bool g_noBql = false;

// --fig17DelAckCount: fig17's DelAckCount, 2 as in dctcp-example.cc; 1 is a counterfactual (an ACK
// per segment; the example's own setting overrides --ns3::TcpSocket::DelAckCount).
uint32_t g_fig17DelAckCount = 2;

// ------------------------------------------------------ tcp-validation.cc (dctcp-10ms / -80ms)
int
Validation(Time baseRtt, Time stopTime, DataRate linkRate, Time ceThreshold, double warm,
           const std::string& series)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(32768000));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(32768000));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(RecoveryTypeId()));
    Config::SetDefault("ns3::CoDelQueueDisc::CeThreshold", TimeValue(ceThreshold));
    Config::SetDefault("ns3::FqCoDelQueueDisc::CeThreshold", TimeValue(ceThreshold));
    Config::SetDefault("ns3::CoDelQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::FqCoDelQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));

    Ptr<Node> server = CreateObject<Node>(); // node 0
    Ptr<Node> wan = CreateObject<Node>();    // node 1
    Ptr<Node> lan = CreateObject<Node>();    // node 2
    Ptr<Node> client = CreateObject<Node>(); // node 3

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("3p")));
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate("1000Mbps")));
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    NetDeviceContainer serverDevs = p2p.Install(wan, server);
    p2p.SetChannelAttribute("Delay", TimeValue(baseRtt / 2));
    NetDeviceContainer wanLan = p2p.Install(wan, lan);
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    NetDeviceContainer clientDevs = p2p.Install(lan, client);
    wanLan.Get(0)->GetObject<PointToPointNetDevice>()->SetAttribute("DataRate",
                                                                    DataRateValue(linkRate));

    InternetStackHelper stack;
    stack.InstallAll();
    server->GetObject<TcpL4Protocol>()->SetAttribute("SocketType",
                                                     TypeIdValue(TcpDctcp::GetTypeId()));
    client->GetObject<TcpL4Protocol>()->SetAttribute("SocketType",
                                                     TypeIdValue(TcpDctcp::GetTypeId()));

    TrafficControlHelper fq;
    fq.SetRootQueueDisc("ns3::FqCoDelQueueDisc");
    fq.SetQueueLimits("ns3::DynamicQueueLimits", "HoldTime", StringValue("1ms"));
    fq.Install(serverDevs);
    fq.Install(wanLan.Get(1));
    fq.Install(clientDevs);
    TrafficControlHelper neck;
    neck.SetRootQueueDisc("ns3::CoDelQueueDisc");
    if (!g_noBql)
    {
        neck.SetQueueLimits("ns3::DynamicQueueLimits", "HoldTime", StringValue("1ms"));
    }
    QueueDiscContainer qdc = neck.Install(wanLan.Get(0));

    Ipv4AddressHelper ip;
    ip.SetBase("10.1.2.0", "255.255.255.0");
    ip.Assign(serverDevs);
    ip.SetBase("172.16.1.0", "255.255.255.0");
    ip.Assign(wanLan);
    ip.SetBase("192.168.2.0", "255.255.255.0");
    Ipv4InterfaceContainer clientIf = ip.Assign(clientDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    BulkSendHelper bulk("ns3::TcpSocketFactory",
                        InetSocketAddress(clientIf.GetAddress(1), 5000));
    bulk.SetAttribute("MaxBytes", UintegerValue(7500000000ULL));
    ApplicationContainer app = bulk.Install(server);
    app.Start(Seconds(5));
    app.Stop(stopTime - Seconds(1));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 5000));
    ApplicationContainer sinkApp = sink.Install(client);
    sinkApp.Start(Seconds(5));
    sinkApp.Stop(stopTime - MilliSeconds(500));

    InitFlows(1, 1.0); // TcpDctcp::DctcpAlphaOnInit = 1
    g_warm = warm;
    g_end = (stopTime - Seconds(1)).GetSeconds();
    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, size_t(0)));
    Simulator::Schedule(Seconds(5) + MilliSeconds(100), &ConnectAlpha, server->GetId(), size_t(0));
    Ptr<QueueDisc> q = qdc.Get(0);
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    Simulator::Schedule(Seconds(warm), &AtWarm);
    Simulator::Schedule(Seconds(warm), &SampleQueue, q, MilliSeconds(1));
    Time every = MilliSeconds(200);
    Simulator::Schedule(every, &SampleSeries, every);
    Simulator::Stop(stopTime);
    Simulator::Run();
    std::cout << "RESULT " << Summary(linkRate.GetBitRate(), 1500) << std::endl;
    WriteSeries(series, every.GetSeconds());
    Simulator::Destroy();
    return 0;
}

// --------------------------------------------------------------------- the DCTCP dumbbell
int
Dumbbell(uint32_t n, const std::string& aqm, uint32_t k, Time ceThreshold, DataRate neckRate,
         Time rtt, double duration, double warm, uint32_t limit, const std::string& series)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(32768000));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(32768000));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(RecoveryTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));

    NodeContainer senders;
    senders.Create(n);
    NodeContainer receivers;
    receivers.Create(n);
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();

    // Access links 10 Gbit/s, 1 us; bottleneck neckRate with the rest of the base RTT.
    Time access = MicroSeconds(1);
    Time neckDelay = rtt / 2 - access * 2;
    PointToPointHelper fast;
    fast.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    fast.SetChannelAttribute("Delay", TimeValue(access));
    fast.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", DataRateValue(neckRate));
    neck.SetChannelAttribute("Delay", TimeValue(neckDelay));
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1p")));

    std::vector<NetDeviceContainer> up, down;
    for (uint32_t i = 0; i < n; i++)
    {
        up.push_back(fast.Install(senders.Get(i), r1));
        down.push_back(fast.Install(r2, receivers.Get(i)));
    }
    NetDeviceContainer mid = neck.Install(r1, r2);
    InternetStackHelper stack;
    stack.InstallAll();

    Ipv4AddressHelper ip;
    std::vector<Ipv4InterfaceContainer> downIf;
    for (uint32_t i = 0; i < n; i++)
    {
        std::ostringstream a, b;
        a << "10.1." << i << ".0";
        b << "10.2." << i << ".0";
        ip.SetBase(a.str().c_str(), "255.255.255.0");
        ip.Assign(up[i]);
        ip.SetBase(b.str().c_str(), "255.255.255.0");
        downIf.push_back(ip.Assign(down[i]));
    }
    ip.SetBase("172.16.1.0", "255.255.255.0");
    ip.Assign(mid);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Only the bottleneck's r1 -> r2 direction has a queue disc; elsewhere the device queue
    // (1000 packets) is the only queue, as in bench/ns3_dumbbell.py.
    TrafficControlHelper none;
    for (uint32_t i = 0; i < n; i++)
    {
        none.Uninstall(up[i]);
        none.Uninstall(down[i]);
    }
    none.Uninstall(mid);
    TrafficControlHelper tch;
    if (aqm == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                             "MinTh", DoubleValue(k), "MaxTh", DoubleValue(k), "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false), "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false), "MeanPktSize", UintegerValue(1500),
                             "LinkBandwidth", DataRateValue(neckRate), "LinkDelay",
                             TimeValue(neckDelay));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                             "UseEcn", BooleanValue(true), "CeThreshold", TimeValue(ceThreshold));
    }
    QueueDiscContainer qdc = tch.Install(mid.Get(0));

    InitFlows(n, 1.0);
    g_warm = warm;
    g_end = duration;
    for (uint32_t i = 0; i < n; i++)
    {
        uint16_t port = 5000 + i;
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(downIf[i].GetAddress(1), port));
        ApplicationContainer app = bulk.Install(senders.Get(i));
        Time start = MilliSeconds(i); // flow i starts at i ms
        app.Start(start);
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sink.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0));
        sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, size_t(i)));
        Simulator::Schedule(start + MicroSeconds(1), &ConnectAlpha, senders.Get(i)->GetId(),
                            size_t(i));
    }
    Ptr<QueueDisc> q = qdc.Get(0);
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    Simulator::Schedule(Seconds(warm), &AtWarm);
    Simulator::Schedule(Seconds(warm), &SampleQueue, q, MicroSeconds(20));
    Time every = MilliSeconds(100);
    Simulator::Schedule(every, &SampleSeries, every);
    Simulator::Stop(Seconds(duration) + TimeStep(1));
    Simulator::Run();
    std::cout << "RESULT " << Summary(neckRate.GetBitRate(), 1500) << std::endl;
    WriteSeries(series, every.GetSeconds());
    Simulator::Destroy();
    return 0;
}

} // namespace

#include "fig17.h"

int
main(int argc, char* argv[])
{
    std::string scenario = "validation";
    Time baseRtt = MilliSeconds(10);
    Time stopTime = Seconds(15);
    DataRate linkRate("50Mbps");
    Time ceThreshold = MilliSeconds(1);
    double warm = 7;
    uint32_t flows = 2;
    std::string aqm = "red";
    uint32_t k = 65;
    uint32_t limit = 1000;
    double duration = 10;
    double startup = 1, convergence = 3, measurement = 1;
    std::string series;
    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "validation | dumbbell | fig17", scenario);
    cmd.AddValue("baseRtt", "base RTT", baseRtt);
    cmd.AddValue("stopTime", "validation: stop time", stopTime);
    cmd.AddValue("linkRate", "bottleneck rate", linkRate);
    cmd.AddValue("ceThreshold", "CoDel CE threshold", ceThreshold);
    cmd.AddValue("warm", "measurement window start (s)", warm);
    cmd.AddValue("flows", "dumbbell: flows", flows);
    cmd.AddValue("aqm", "dumbbell: red | codel", aqm);
    cmd.AddValue("k", "dumbbell: RED min = max threshold (packets)", k);
    cmd.AddValue("limit", "dumbbell: queue disc limit (packets)", limit);
    cmd.AddValue("duration", "dumbbell: simulated seconds", duration);
    cmd.AddValue("startup", "fig17: flow start-up window (s)", startup);
    cmd.AddValue("convergence", "fig17: convergence time (s)", convergence);
    cmd.AddValue("measurement", "fig17: measurement window (s)", measurement);
    cmd.AddValue("series", "CSV time series of flow 0 (goodput, alpha)", series);
    cmd.AddValue("recovery",
                 "prr | classic (the ECE reduction at once) | linux-cwr | linux-cwr-bytes (Linux's "
                 "PRR in CWR) | ns3-cwr | ns3-cwr-entry-once (TcpPrrRecovery's CWR restated): "
                 "counterfactuals",
                 g_recovery);
    cmd.AddValue("noBql",
                 "validation: no Dynamic Queue Limits on the bottleneck's device (a counterfactual)",
                 g_noBql);
    cmd.AddValue("fig17DelAckCount", "fig17: segments per delayed ACK (the example: 2)",
                 g_fig17DelAckCount);
    cmd.AddValue("dctcpEcho",
                 "fig17: ns3 (TcpDctcp's receiver) | prior | linux (other CE echoes: counterfactuals)",
                 g_dctcpEcho);
    cmd.Parse(argc, argv);
    if (g_dctcpEcho != "ns3" && g_dctcpEcho != "prior" && g_dctcpEcho != "linux")
    {
        std::cerr << "--dctcpEcho: expected ns3, prior or linux, not " << g_dctcpEcho << std::endl;
        return 2;
    }
    const std::vector<std::string> recoveries{"prr", "classic", "linux-cwr", "linux-cwr-bytes",
                                              "ns3-cwr", "ns3-cwr-entry-once"};
    if (std::find(recoveries.begin(), recoveries.end(), g_recovery) == recoveries.end())
    {
        std::cerr << "--recovery: expected prr, classic, linux-cwr, linux-cwr-bytes, ns3-cwr or "
                     "ns3-cwr-entry-once, not "
                  << g_recovery << std::endl;
        return 2;
    }
    if (scenario == "validation")
    {
        return Validation(baseRtt, stopTime, linkRate, ceThreshold, warm, series);
    }
    if (scenario == "dumbbell")
    {
        return Dumbbell(flows, aqm, k, ceThreshold, linkRate, baseRtt, duration, warm, limit,
                        series);
    }
    if (scenario == "fig17")
    {
        return Fig17(startup, convergence, measurement, series);
    }
    std::cerr << "unknown scenario " << scenario << std::endl;
    return 2;
}
