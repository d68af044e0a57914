// dctcp-example.cc's set-up (the DCTCP paper's Fig. 17), for dctcp_cases.cc (included once).

namespace
{
// Every sender's CongestionEstimate into the window's sums of ECE-marked and acked bytes (echo.h).
void
ConnectEstimate(uint32_t nodeId)
{
    std::ostringstream path;
    path << "/NodeList/" << nodeId
         << "/$ns3::TcpL4Protocol/SocketList/0/CongestionOps/$ns3::TcpDctcp/CongestionEstimate";
    Config::ConnectWithoutContextFailSafe(path.str(), MakeCallback(&OnEstimate));
}

// ------------------------------------------- dctcp-example.cc (the DCTCP paper's Fig. 17)
// 40 TCP flows: S1 (10) and S3 (10) to R1, S2 (20) to R2 (one receiver each); T1 -> T2 at
// 10 Gbit/s, every other link 1 Gbit/s, all 10 us. RED as in the example: QW = 1, no hard
// drop, ECN, limit 2666 packets, MinTh 20 / MaxTh 60 on the 1 Gbit/s ports and 50 / 150 on
// T1 -> T2 (and on T2 -> T1), Gentle at its default (true). Queue discs are installed before the
// addresses, so the devices without RED get ns-3's default FqCoDel, as in the example.
int
Fig17(double startup, double convergence, double measurement, const std::string& series)
{
    Time flowStartupWindow = Seconds(startup);
    Time stopTime = Seconds(startup + convergence + measurement);
    // TcpDctcp with counters (echo.h); --dctcpEcho sets another CE echo at the receivers.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcpEcho::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(g_fig17DelAckCount));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("2666p")));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(20));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(60));

    NodeContainer S1, S2, S3, R2;
    Ptr<Node> T1 = CreateObject<Node>();
    Ptr<Node> T2 = CreateObject<Node>();
    Ptr<Node> R1 = CreateObject<Node>();
    S1.Create(10);
    S2.Create(20);
    S3.Create(10);
    R2.Create(20);
    PointToPointHelper sr;
    sr.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    sr.SetChannelAttribute("Delay", StringValue("10us"));
    PointToPointHelper t;
    t.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    t.SetChannelAttribute("Delay", StringValue("10us"));
    std::vector<NetDeviceContainer> S1T1, S2T1, S3T2, R2T2;
    NetDeviceContainer T1T2 = t.Install(T1, T2);
    NetDeviceContainer R1T2 = sr.Install(R1, T2);
    for (uint32_t i = 0; i < 10; i++)
    {
        S1T1.push_back(sr.Install(S1.Get(i), T1));
    }
    for (uint32_t i = 0; i < 20; i++)
    {
        S2T1.push_back(sr.Install(S2.Get(i), T1));
    }
    for (uint32_t i = 0; i < 10; i++)
    {
        S3T2.push_back(sr.Install(S3.Get(i), T2));
    }
    for (uint32_t i = 0; i < 20; i++)
    {
        R2T2.push_back(sr.Install(R2.Get(i), T2));
    }
    InternetStackHelper stack;
    stack.InstallAll();
    TrafficControlHelper red10;
    red10.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue("10Gbps"),
                           "LinkDelay", StringValue("10us"), "MinTh", DoubleValue(50), "MaxTh",
                           DoubleValue(150));
    QueueDiscContainer qT1 = red10.Install(T1T2);
    TrafficControlHelper red1;
    red1.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue("1Gbps"),
                          "LinkDelay", StringValue("10us"), "MinTh", DoubleValue(20), "MaxTh",
                          DoubleValue(60));
    QueueDiscContainer qT2 = red1.Install(R1T2.Get(1));
    for (auto& d : S1T1)
    {
        red1.Install(d.Get(1));
    }
    for (auto& d : S2T1)
    {
        red1.Install(d.Get(1));
    }
    for (auto& d : S3T2)
    {
        red1.Install(d.Get(1));
    }
    for (auto& d : R2T2)
    {
        red1.Install(d.Get(1));
    }
    Ipv4AddressHelper address;
    address.SetBase("172.16.1.0", "255.255.255.0");
    address.Assign(T1T2);
    address.SetBase("192.168.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ipR1T2 = address.Assign(R1T2);
    address.SetBase("10.1.1.0", "255.255.255.0");
    for (auto& d : S1T1)
    {
        address.Assign(d);
        address.NewNetwork();
    }
    address.SetBase("10.2.1.0", "255.255.255.0");
    for (auto& d : S2T1)
    {
        address.Assign(d);
        address.NewNetwork();
    }
    address.SetBase("10.3.1.0", "255.255.255.0");
    for (auto& d : S3T2)
    {
        address.Assign(d);
        address.NewNetwork();
    }
    address.SetBase("10.4.1.0", "255.255.255.0");
    std::vector<Ipv4InterfaceContainer> ipR2T2;
    for (auto& d : R2T2)
    {
        ipR2T2.push_back(address.Assign(d));
        address.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Flows 0-9 S1 -> R1, 10-29 S2 -> R2, 30-39 S3 -> R1 (the example's start times).
    InitFlows(40, 1.0);
    g_warm = startup + convergence;
    g_end = stopTime.GetSeconds();
    auto onoff = [&](Ptr<Node> src, Address dst, Time start) {
        OnOffHelper h("ns3::TcpSocketFactory", Address());
        h.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1]"));
        h.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
        h.SetAttribute("DataRate", DataRateValue(DataRate("1Gbps")));
        h.SetAttribute("PacketSize", UintegerValue(1000));
        h.SetAttribute("Remote", AddressValue(dst));
        ApplicationContainer a = h.Install(src);
        a.Start(start);
        a.Stop(stopTime);
    };
    auto sinkAt = [&](Ptr<Node> node, uint16_t port, size_t flow) {
        PacketSinkHelper h("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer a = h.Install(node);
        a.Start(Seconds(0));
        a.Stop(stopTime);
        a.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, flow));
    };
    for (uint32_t i = 0; i < 20; i++)
    {
        uint16_t port = 50000 + i;
        sinkAt(R2.Get(i), port, 10 + i);
        Time start = i * flowStartupWindow / 20 + MilliSeconds(i * 5);
        onoff(S2.Get(i), InetSocketAddress(ipR2T2[i].GetAddress(0), port), start);
        Simulator::Schedule(start + MicroSeconds(1), &ConnectAlpha, S2.Get(i)->GetId(), 10 + i);
        Simulator::Schedule(start + MicroSeconds(1), &ConnectEstimate, S2.Get(i)->GetId());
    }
    for (uint32_t i = 0; i < 20; i++)
    {
        uint16_t port = 50000 + i;
        size_t flow = i < 10 ? i : 20 + i;
        sinkAt(R1, port, flow);
        Ptr<Node> src = i < 10 ? S1.Get(i) : S3.Get(i - 10);
        Time start = (i < 10 ? i : i - 10) * flowStartupWindow / 10 + MilliSeconds(i * 5);
        onoff(src, InetSocketAddress(ipR1T2.GetAddress(0), port), start);
        Simulator::Schedule(start + MicroSeconds(1), &ConnectAlpha, src->GetId(), flow);
        Simulator::Schedule(start + MicroSeconds(1), &ConnectEstimate, src->GetId());
    }
    // The queue that the summary reports is T1 -> T2's (10 Gbit/s); T2 -> R1's goes to stderr.
    Ptr<QueueDisc> q = qT1.Get(0);
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    Simulator::Schedule(Seconds(g_warm), &AtWarm);
    Simulator::Schedule(Seconds(g_warm), &SampleQueue, q, MicroSeconds(10));
    Time every = MilliSeconds(100);
    Simulator::Schedule(every, &SampleSeries, every);
    Ptr<QueueDisc> q2 = qT2.Get(0);
    std::vector<uint32_t>* t2 = new std::vector<uint32_t>();
    std::function<void()> sampleT2 = [&]() {
        t2->push_back(q2->GetNPackets());
        Simulator::Schedule(MicroSeconds(10), sampleT2);
    };
    Simulator::Schedule(Seconds(g_warm), sampleT2);
    Simulator::Stop(stopTime + TimeStep(1));
    Simulator::Run();
    std::string s = Summary(10e9, 1500);
    s.pop_back();
    std::ostringstream o;
    o << s << ",\"t2_r1_queue_pkts\":{\"p1\":" << Pct(*t2, 0.01) << ",\"p50\":" << Pct(*t2, 0.5)
      << ",\"p99\":" << Pct(*t2, 0.99) << ",\"max\":" << Pct(*t2, 1.0) << "}"
      << ",\"dctcp_echo\":\"" << g_dctcpEcho << "\",\"receiver_ect_segments\":" << g_rcvEct
      << ",\"receiver_ce_segments\":" << g_rcvCe << ",\"sender_ece_bytes\":" << g_sndEceBytes
      << ",\"sender_acked_bytes\":" << g_sndBytes << "}";
    std::cout << "RESULT " << o.str() << std::endl;
    WriteSeries(series, every.GetSeconds());
    Simulator::Destroy();
    delete t2;
    return 0;
}

} // namespace
