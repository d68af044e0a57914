// ns-3's side of bench/ns3_codel_cbr.py (its module doc says what and how).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <vector>

using namespace ns3;

// --prrRfc=1: ns-3's TcpPrrRecovery (tcp-prr-recovery.cc, 3.44) with RFC 6937's DeliveredData:
// without the SMSS it adds on every duplicate ACK (lines 74-77). Everything else as shipped.
class TcpPrrRfc : public TcpClassicRecovery {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::TcpPrrRfc").SetParent<TcpClassicRecovery>().AddConstructor<TcpPrrRfc>().SetGroupName("Internet");
        return tid;
    }
    TcpPrrRfc() : TcpClassicRecovery() {}
    TcpPrrRfc(const TcpPrrRfc& r) : TcpClassicRecovery(r), m_del(r.m_del), m_out(r.m_out), m_fs(r.m_fs) {}
    std::string GetName() const override { return "PrrRfc"; }
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t, uint32_t deliveredBytes) override {
        m_out = 0; m_del = 0; m_fs = tcb->m_bytesInFlight; DoRecovery(tcb, deliveredBytes, true);
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool) override {
        if (deliveredBytes == 0) return;
        m_del += deliveredBytes;
        int sendCount;
        if (tcb->m_bytesInFlight > tcb->m_ssThresh)
            sendCount = std::ceil(m_del * tcb->m_ssThresh * 1.0 / m_fs) - m_out;
        else {
            int limit = std::max(m_del - m_out, deliveredBytes);
            if (tcb->m_isRetransDataAcked) limit += tcb->m_segmentSize;
            sendCount = std::min(limit, static_cast<int>(tcb->m_ssThresh - tcb->m_bytesInFlight));
        }
        sendCount = std::max(sendCount, static_cast<int>(m_out > 0 ? 0 : tcb->m_segmentSize));
        tcb->m_cWnd = tcb->m_bytesInFlight + sendCount;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
    void ExitRecovery(Ptr<TcpSocketState> tcb) override { tcb->m_cWndInfl = tcb->m_cWnd; }
    void UpdateBytesSent(uint32_t b) override { m_out += b; }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<TcpPrrRfc>(this); }
  private:
    uint32_t m_del = 0, m_out = 0, m_fs = 0;
};
NS_OBJECT_ENSURE_REGISTERED(TcpPrrRfc);

static double g_warm;
static std::vector<double> g_sojourn, g_cbr_delay;
static uint64_t g_drops = 0, g_cbr_drops = 0, g_sojourn_drops = 0, g_rtos = 0;
static std::unordered_map<uint64_t, double> g_cbr_enq;

static bool IsUdp(Ptr<const QueueDiscItem> item) {
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    return ip && ip->GetHeader().GetProtocol() == 17;
}
static void Sojourn(Time t) {
    if (Simulator::Now().GetSeconds() >= g_warm) g_sojourn.push_back(t.GetSeconds());
}
static void Drop(Ptr<const QueueDiscItem> item, const char* reason) {
    if (Simulator::Now().GetSeconds() < g_warm) return;
    g_drops++;
    if (IsUdp(item)) g_cbr_drops++;
    if (std::string(reason) == "Target exceeded drop") g_sojourn_drops++;
}
static void Enq(Ptr<const QueueDiscItem> item) {
    double t = Simulator::Now().GetSeconds();
    if (t >= g_warm && IsUdp(item)) g_cbr_enq[item->GetPacket()->GetUid()] = t;
}
static void MacRx(Ptr<const Packet> p) {
    auto it = g_cbr_enq.find(p->GetUid());
    if (it == g_cbr_enq.end()) return;
    g_cbr_delay.push_back(Simulator::Now().GetSeconds() - it->second);
    g_cbr_enq.erase(it);
}
// --rtoLog=FILE: every retransmission timeout with the sender's state before it (the columns
// of tcplab's `rto_events` example), for tracing where the two time out differently.
static FILE* g_rtoLog = nullptr;
struct SenderTrack {
    int state = 0;
    uint32_t una = 0, sndMax = 0, cwnd = 0;
    double unaAt = 0, rto = 0;
    Ptr<const TcpSocketBase> sock;
    std::unordered_map<uint32_t, std::pair<double, bool>> tx;  // seq -> (last sent, resent this episode)
};
static std::unordered_map<uint32_t, SenderTrack> g_track;
static uint32_t NodeOf(const std::string& ctx) { return std::stoul(ctx.substr(10, ctx.find('/', 10) - 10)); }
static void TrTx(std::string ctx, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
    if (p->GetSize() == 0) return;
    auto& t = g_track[NodeOf(ctx)];
    t.sock = s;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    bool resent = seq < t.sndMax;
    auto& e = t.tx[seq];
    e = {Simulator::Now().GetSeconds(), e.second || resent};
    t.sndMax = std::max(t.sndMax, seq + p->GetSize());
}
static void TrAck(std::string ctx, SequenceNumber32, SequenceNumber32 n) {
    auto& t = g_track[NodeOf(ctx)];
    for (auto it = t.tx.begin(); it != t.tx.end();) it = it->first < n.GetValue() ? t.tx.erase(it) : std::next(it);
    t.una = n.GetValue();
    t.unaAt = Simulator::Now().GetSeconds();
}
static void TrCwnd(std::string ctx, uint32_t, uint32_t n) { g_track[NodeOf(ctx)].cwnd = n; }
// Every expiry of the retransmission timer doubles m_rto (TcpSocketBase::ReTxTimeout,
// tcp-socket-base.cc lines 3950-3951 in 3.44), before the state changes to CA_LOSS; a
// recomputation from the RTT estimate (lines 3801, 3828) has its own value. So a timeout is
// counted where the value doubles: the repeated ones of a CA_LOSS episode included, which the
// CongState trace does not show (no change).
static void TrRto(std::string ctx, Time o, Time n) {
    auto& t = g_track[NodeOf(ctx)];
    t.rto = n.GetSeconds();
    if (!(n == o + o || (n == Seconds(60) && o > Seconds(30)))) return;
    double now = Simulator::Now().GetSeconds();
    if (now >= g_warm) g_rtos++;
    if (g_rtoLog) {
        const char* st = t.state == TcpSocketState::CA_RECOVERY ? "recovery"
                         : t.state == TcpSocketState::CA_LOSS   ? "loss"
                                                                : "open";
        auto head = t.tx.find(t.una);
        uint32_t sacked = t.sock ? t.sock->GetTxBuffer()->GetSacked() / 1448 : 0;
        std::fprintf(g_rtoLog, "%.9f,%u,%s,%u,%u,%d,%u,%u,%.6f,%.6f,%.6f\n", now, NodeOf(ctx), st, t.una / 1448,
                     t.sndMax / 1448, head != t.tx.end() && head->second.second ? 1 : 0, sacked, t.cwnd / 1448,
                     o.GetSeconds(), now - t.unaAt, head != t.tx.end() ? now - head->second.first : -1.0);
    }
    for (auto& e : t.tx) e.second.second = false;  // this timeout's retransmissions start now
}
// A fast recovery's retransmissions start when it is entered.
static void TrState(std::string ctx, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    auto& t = g_track[NodeOf(ctx)];
    if (n != o && n == TcpSocketState::CA_RECOVERY)
        for (auto& e : t.tx) e.second.second = false;
    t.state = n;
}
static void HookSockets() {
    std::string s = "/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/";
    Config::Connect(s + "RTO", MakeCallback(&TrRto));
    Config::Connect(s + "CongState", MakeCallback(&TrState));
    if (!g_rtoLog) return;
    Config::Connect(s + "Tx", MakeCallback(&TrTx));
    Config::Connect(s + "HighestRxAck", MakeCallback(&TrAck));
    Config::Connect(s + "CongestionWindow", MakeCallback(&TrCwnd));
}
// --trace=FILE: the bottleneck queue disc's events for bench/ns3_codel_replay.py.
static FILE* g_trace = nullptr;
static void TraceItem(char ev, Ptr<const QueueDiscItem> item, const char* extra) {
    if (!g_trace) return;
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    int flow = ip ? (int)((ip->GetHeader().GetSource().Get() >> 8) & 0xff) : -1;
    long seq = -1;
    uint32_t len = 0;
    if (!IsUdp(item)) {
        TcpHeader h;
        Ptr<Packet> p = item->GetPacket()->Copy();
        p->RemoveHeader(h);
        seq = h.GetSequenceNumber().GetValue();
        len = p->GetSize();
    }
    std::fprintf(g_trace, "%c %.9f %lu %d %d %ld %u %s\n", ev, Simulator::Now().GetSeconds(),
                 (unsigned long)item->GetPacket()->GetUid(), flow, IsUdp(item) ? 1 : 0, seq, len, extra);
}
static void TraceEnq(Ptr<const QueueDiscItem> item) { TraceItem('E', item, std::to_string(item->GetSize()).c_str()); }
static void TraceDeq(Ptr<const QueueDiscItem> item) {
    char soj[32];
    std::snprintf(soj, sizeof soj, "%.9f", (Simulator::Now() - item->GetTimeStamp()).GetSeconds());
    TraceItem('D', item, soj);
}
static void TraceDrop(Ptr<const QueueDiscItem> item, const char* reason) {
    TraceItem('X', item, std::string(reason) == "Target exceeded drop" ? "T" : "O");
}
static double Pct(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = (size_t)(q * (v.size() - 1) + 0.5);
    return v[i];
}

int main(int argc, char** argv) {
    uint32_t ntcp = 2, cbrSize = 200, devq = 1;
    double cbrRate = 1e6, duration = 60, warm = 10;
    CommandLine cmd;
    cmd.AddValue("ntcp", "TCP flows", ntcp);
    cmd.AddValue("cbrSize", "CBR IP packet bytes", cbrSize);
    cmd.AddValue("cbrRate", "CBR rate bit/s (IP bytes)", cbrRate);
    cmd.AddValue("devq", "device queue packets", devq);
    cmd.AddValue("duration", "s", duration);
    cmd.AddValue("warm", "s", warm);
    std::string trace;
    cmd.AddValue("trace", "write the bottleneck queue disc's events to this file", trace);
    bool prrRfc = false;
    cmd.AddValue("prrRfc", "PRR with RFC 6937's DeliveredData (TcpPrrRfc above)", prrRfc);
    std::string rtoLog;
    cmd.AddValue("rtoLog", "write every retransmission timeout to this file (CSV)", rtoLog);
    cmd.Parse(argc, argv);
    if (!rtoLog.empty()) {
        g_rtoLog = std::fopen(rtoLog.c_str(), "w");
        std::fprintf(g_rtoLog, "t_s,flow,state,snd_una,snd_max,head_rtx,sacked,cwnd,rto_s,since_ack_s,since_head_tx_s\n");
    }
    if (!trace.empty()) g_trace = std::fopen(trace.c_str(), "w");
    g_warm = warm;

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(prrRfc ? TcpPrrRfc::GetTypeId() : TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));

    uint32_t n = ntcp + 1;  // the last source is the CBR one
    NodeContainer senders, receivers, routers;
    senders.Create(n);
    receivers.Create(n);
    routers.Create(2);
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(receivers);
    stack.Install(routers);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    neck.SetChannelAttribute("Delay", StringValue("20ms"));
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(std::to_string(devq) + "p"));

    Ipv4AddressHelper addr;
    TrafficControlHelper none;
    TrafficControlHelper codel;
    codel.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", StringValue("1000p"));

    NetDeviceContainer neckDevs = neck.Install(routers.Get(0), routers.Get(1));
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(neckDevs);
    none.Uninstall(neckDevs);
    QueueDiscContainer qdiscs = codel.Install(neckDevs);
    std::vector<Ipv4Address> dst;
    for (uint32_t i = 0; i < n; i++) {
        NetDeviceContainer a = access.Install(senders.Get(i), routers.Get(0));
        addr.SetBase(Ipv4Address((10u << 24) | (1u << 16) | (i << 8)), "255.255.255.0");
        addr.Assign(a);
        none.Uninstall(a);
        NetDeviceContainer e = access.Install(routers.Get(1), receivers.Get(i));
        addr.SetBase(Ipv4Address((10u << 24) | (2u << 16) | (i << 8)), "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(e);
        none.Uninstall(e);
        dst.push_back(ifs.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    ApplicationContainer sinks;
    for (uint32_t i = 0; i < ntcp; i++) {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dst[i], 9));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = bulk.Install(senders.Get(i));
        a.Start(Seconds(0.1 * i));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sinks.Add(sink.Install(receivers.Get(i)));
    }
    // CBR: the same packet rate as tcplab's (IP size cbrSize at cbrRate).
    uint32_t payload = cbrSize - 28;
    double pps = cbrRate / (8.0 * cbrSize);
    OnOffHelper cbr("ns3::UdpSocketFactory", InetSocketAddress(dst[ntcp], 10));
    cbr.SetConstantRate(DataRate((uint64_t)(pps * 8 * payload + 0.5)), payload);
    cbr.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1000]"));
    cbr.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    ApplicationContainer c = cbr.Install(senders.Get(ntcp));
    c.Start(Seconds(0));
    PacketSinkHelper usink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 10));
    usink.Install(receivers.Get(ntcp)).Start(Seconds(0));
    sinks.Start(Seconds(0));

    Ptr<QueueDisc> q = qdiscs.Get(0);  // r1's end: r1 -> r2
    q->TraceConnectWithoutContext("SojournTime", MakeCallback(&Sojourn));
    q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Drop));
    q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Drop));
    q->TraceConnectWithoutContext("Enqueue", MakeCallback(&Enq));
    neckDevs.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&MacRx));
    if (g_trace) {
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&TraceEnq));
        q->TraceConnectWithoutContext("Dequeue", MakeCallback(&TraceDeq));
        q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&TraceDrop));
        q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&TraceDrop));
    }

    Simulator::Schedule(Seconds(1.0), &HookSockets);  // every sender's socket exists by then
    std::vector<uint64_t> rx0(ntcp);
    Simulator::Schedule(Seconds(warm), [&]() {
        for (uint32_t i = 0; i < ntcp; i++) rx0[i] = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < ntcp; i++) bytes += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx() - rx0[i];
    double mean = 0;
    for (double d : g_cbr_delay) mean += d;
    mean = g_cbr_delay.empty() ? 0 : mean / g_cbr_delay.size();
    std::printf("RESULT {\"drops\": %lu, \"cbr_drops\": %lu, \"sojourn_drops\": %lu, \"sojourn_p50\": %.9f, "
                "\"sojourn_p99\": %.9f, \"cbr_delay_mean\": %.9f, \"cbr_delay_p99\": %.9f, \"goodput_mbps\": %.6f, "
                "\"dequeued\": %zu, \"timeouts\": %lu}\n",
                (unsigned long)g_drops, (unsigned long)g_cbr_drops, (unsigned long)g_sojourn_drops,
                Pct(g_sojourn, 0.5), Pct(g_sojourn, 0.99), mean, Pct(g_cbr_delay, 0.99),
                bytes * 8 / (duration - warm) / 1e6, g_sojourn.size(), (unsigned long)g_rtos);
    Simulator::Destroy();
    if (g_trace) std::fclose(g_trace);
    if (g_rtoLog) std::fclose(g_rtoLog);
    return 0;
}
