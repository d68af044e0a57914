// Measurement state and summary shared by the scenarios of dctcp_cases.cc (included once,
// by that file: the whole program is one translation unit).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// ------------------------------------------------------------------ shared measurement state
std::vector<uint64_t> g_rx;             // bytes received per flow (whole run)
std::vector<uint64_t> g_rxAtWarm;       // bytes received per flow at the window's start
std::vector<uint64_t> g_rxAtEnd;        // bytes received per flow at the window's end
std::vector<double> g_alpha;            // current alpha per flow
std::vector<double> g_alphaArea;        // integral of alpha over the window, per flow
std::vector<double> g_alphaLast;        // time of the last alpha change, per flow
std::vector<uint64_t> g_alphaUpdates;   // alpha updates inside the window, per flow
double g_warm = 0;                      // window start (s)
double g_end = 0;                       // window end (s)
uint64_t g_marks = 0, g_drops = 0;      // queue disc marks / drops inside the window
std::vector<uint32_t> g_qSamples;       // queue disc length samples (packets) inside the window
std::vector<double> g_alphaSeries;      // alpha of flow 0 at each series tick
std::vector<uint64_t> g_rxSeries;       // flow 0 bytes at each series tick

bool
InWindow()
{
    double now = Simulator::Now().GetSeconds();
    return now >= g_warm && now <= g_end;
}

void
OnRx(size_t i, Ptr<const Packet> p, const Address&)
{
    g_rx[i] += p->GetSize();
}

void
AccumulateAlpha(size_t i, double now)
{
    double from = std::max(g_alphaLast[i], g_warm);
    double to = std::min(now, g_end);
    if (to > from)
    {
        g_alphaArea[i] += g_alpha[i] * (to - from);
    }
    g_alphaLast[i] = now;
}

void
OnAlpha(size_t i, uint32_t, uint32_t, double alpha)
{
    double now = Simulator::Now().GetSeconds();
    AccumulateAlpha(i, now);
    g_alpha[i] = alpha;
    if (InWindow())
    {
        g_alphaUpdates[i]++;
    }
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    if (InWindow())
    {
        g_marks++;
    }
}

void
OnDrop(Ptr<const QueueDiscItem>)
{
    if (InWindow())
    {
        g_drops++;
    }
}

void
AtEnd()
{
    g_rxAtEnd = g_rx;
}

// Snapshots the receivers' byte counts at the window's start and schedules the one at its end.
void
AtWarm()
{
    g_rxAtWarm = g_rx;
    Simulator::Schedule(Seconds(g_end) - Simulator::Now(), &AtEnd);
}

void
SampleQueue(Ptr<QueueDisc> q, Time every)
{
    if (InWindow())
    {
        g_qSamples.push_back(q->GetNPackets());
    }
    Simulator::Schedule(every, &SampleQueue, q, every);
}

void
SampleSeries(Time every)
{
    g_alphaSeries.push_back(g_alpha.empty() ? 0.0 : g_alpha[0]);
    g_rxSeries.push_back(g_rx.empty() ? 0 : g_rx[0]);
    Simulator::Schedule(every, &SampleSeries, every);
}

void
ConnectAlpha(uint32_t nodeId, size_t i)
{
    std::ostringstream path;
    path << "/NodeList/" << nodeId
         << "/$ns3::TcpL4Protocol/SocketList/0/CongestionOps/$ns3::TcpDctcp/CongestionEstimate";
    Config::ConnectWithoutContextFailSafe(path.str(), MakeBoundCallback(&OnAlpha, i));
}

void
InitFlows(size_t n, double alphaInit)
{
    g_rx.assign(n, 0);
    g_rxAtWarm.assign(n, 0);
    g_rxAtEnd.assign(n, 0);
    g_alpha.assign(n, alphaInit);
    g_alphaArea.assign(n, 0.0);
    g_alphaLast.assign(n, 0.0);
    g_alphaUpdates.assign(n, 0);
}

double
Pct(std::vector<uint32_t> v, double q)
{
    if (v.empty())
    {
        return -1;
    }
    std::sort(v.begin(), v.end());
    size_t k = static_cast<size_t>(q * (v.size() - 1) + 0.5);
    return v[k];
}

// The summary every scenario prints: per-flow goodput and time-averaged alpha in the window,
// the bottleneck queue disc's marks, drops and length percentiles (packets).
std::string
Summary(double linkBps, uint32_t wireBytes)
{
    double now = Simulator::Now().GetSeconds();
    double span = g_end - g_warm;
    std::ostringstream o;
    o.precision(10);
    o << "{\"window\":[" << g_warm << "," << g_end << "],\"goodput_bps\":[";
    double total = 0;
    for (size_t i = 0; i < g_rx.size(); i++)
    {
        double g = (g_rxAtEnd[i] - g_rxAtWarm[i]) * 8.0 / span;
        total += g;
        o << (i ? "," : "") << g;
    }
    o << "],\"goodput_total_bps\":" << total << ",\"alpha_mean\":[";
    for (size_t i = 0; i < g_alpha.size(); i++)
    {
        AccumulateAlpha(i, std::max(now, g_end));
        o << (i ? "," : "") << g_alphaArea[i] / span;
    }
    o << "],\"alpha_updates\":[";
    for (size_t i = 0; i < g_alphaUpdates.size(); i++)
    {
        o << (i ? "," : "") << g_alphaUpdates[i];
    }
    double mean = 0;
    uint32_t mx = 0, mn = UINT32_MAX;
    for (uint32_t s : g_qSamples)
    {
        mean += s;
        mx = std::max(mx, s);
        mn = std::min(mn, s);
    }
    mean = g_qSamples.empty() ? -1 : mean / g_qSamples.size();
    o << "],\"marks\":" << g_marks << ",\"drops\":" << g_drops << ",\"queue_pkts\":{\"mean\":"
      << mean << ",\"min\":" << (g_qSamples.empty() ? 0 : mn) << ",\"p1\":" << Pct(g_qSamples, 0.01)
      << ",\"p5\":" << Pct(g_qSamples, 0.05) << ",\"p50\":" << Pct(g_qSamples, 0.5)
      << ",\"p95\":" << Pct(g_qSamples, 0.95) << ",\"p99\":" << Pct(g_qSamples, 0.99)
      << ",\"max\":" << mx << ",\"samples\":" << g_qSamples.size() << "}"
      << ",\"queue_delay_mean_s\":" << (mean < 0 ? -1 : mean * wireBytes * 8.0 / linkBps) << "}";
    return o.str();
}

void
WriteSeries(const std::string& path, double every)
{
    if (path.empty())
    {
        return;
    }
    std::ofstream f(path);
    f << "time_s,goodput_bps,alpha\n";
    for (size_t k = 0; k < g_alphaSeries.size(); k++)
    {
        uint64_t prev = k ? g_rxSeries[k - 1] : 0;
        f << (k + 1) * every << "," << (g_rxSeries[k] - prev) * 8.0 / every << ","
          << g_alphaSeries[k] << "\n";
    }
}

} // namespace
