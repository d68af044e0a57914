// Counterfactual recoveries for --recovery (dctcp_cases.cc, included once). Both keep
// TcpPrrRecovery for fast recovery (CA_RECOVERY) and change only how cwnd comes down in CA_CWR
// (an ECE's reduction).
//
// linux-cwr: as Linux's tcp_cwnd_reduction (tcp_input.c; tcplab's `cwr_reduction = "prr"`,
// tcp/cwr.rs), in segments:
//   entry (tcp_init_cwnd_reduction): prior_cwnd = cwnd, delivered = out = 0, cwnd unchanged;
//   every ACK that delivers: delivered += its segments; if in flight > ssthresh,
//   sndcnt = ceil(ssthresh x delivered / prior_cwnd) - out, else
//   sndcnt = min(ssthresh - in flight, max(delivered - out, its segments) + 1);
//   sndcnt = max(sndcnt, 1 if out = 0); cwnd = in flight + sndcnt.
// linux-cwr-bytes: the same rules counted in bytes, as TcpPrrRecovery counts (one segment's
// bytes for Linux's 1).
//
// ns3-cwr: TcpPrrRecovery's own arithmetic in CWR restated (tcp-prr-recovery.cc, 3.44), in bytes,
// so that its departures from Linux can be switched off one at a time; with none switched off it
// is TcpPrrRecovery's run. Its departures:
//   * RecoverFS is the bytes in flight at entry, not cwnd (l. 64);
//   * EnterRecovery runs DoRecovery as for a duplicate ACK (l. 66), adding one segment to the
//     entering ACK's bytes (l. 74-77), and TcpSocketBase runs DoRecovery for the same ACK again
//     in CA_CWR (tcp-socket-base.cc l. 2156): the entering ACK counts twice and a segment more;
//   * prr_delivered x ssthresh is a 32-bit unsigned product (l. 89-90), which wraps once it
//     passes 2^32 (here: 4.3 MB squared, e.g. 70 kB delivered at an ssthresh of 62 kB);
//   * max(prr_delivered - prr_out, delivered) subtracts unsigned (l. 95);
//   * the slow-start bound adds a segment only when a retransmission was acknowledged
//     (l. 99-105), never in CWR.
// ns3-cwr-entry-once: ns3-cwr with the entering ACK counted once, with no segment added (the
// entry leaves cwnd alone; the CA_CWR call counts the ACK).

namespace ns3
{

// --recovery=linux-cwr-bytes sets it (RecoveryTypeId, dctcp_cases.cc).
bool g_linuxCwrBytes = false;

class TcpLinuxCwrRecovery : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLinuxCwrRecovery")
                                .SetParent<TcpPrrRecovery>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpLinuxCwrRecovery>();
        return tid;
    }

    TcpLinuxCwrRecovery() = default;

    TcpLinuxCwrRecovery(const TcpLinuxCwrRecovery& o)
        : TcpPrrRecovery(o),
          m_cwr(o.m_cwr),
          m_unit(o.m_unit),
          m_priorCwnd(o.m_priorCwnd),
          m_delivered(o.m_delivered),
          m_out(o.m_out)
    {
    }

    std::string GetName() const override
    {
        return "LinuxCwrRecovery";
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpLinuxCwrRecovery>(this);
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_cwr = tcb->m_congState == TcpSocketState::CA_CWR;
        if (!m_cwr)
        {
            TcpPrrRecovery::EnterRecovery(tcb, dupAckCount, unAckDataCount, deliveredBytes);
            return;
        }
        int64_t unit = Unit(tcb);
        m_priorCwnd = std::max<int64_t>(tcb->m_cWnd / unit, 1);
        m_delivered = 0;
        m_out = 0;
        // The entering ACK's bytes: TcpSocketBase's CA_CWR branch passes them to DoRecovery.
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        if (!m_cwr)
        {
            TcpPrrRecovery::DoRecovery(tcb, deliveredBytes, isDupAck);
            return;
        }
        int64_t unit = Unit(tcb);
        int64_t segment = tcb->m_segmentSize / unit;
        int64_t newly = (deliveredBytes + unit - 1) / unit;
        if (newly == 0)
        {
            return;
        }
        m_delivered += newly;
        int64_t ssthresh = tcb->m_ssThresh / unit;
        int64_t inFlight = (tcb->m_bytesInFlight + unit - 1) / unit;
        int64_t delta = ssthresh - inFlight;
        int64_t sndcnt;
        if (delta < 0)
        {
            sndcnt = (ssthresh * m_delivered + m_priorCwnd - 1) / m_priorCwnd - m_out;
        }
        else
        {
            // In CA_CWR TcpSocketBase calls DoRecovery only for an ACK that advanced snd_una.
            sndcnt = std::min(delta, std::max(m_delivered - m_out, newly) + segment);
        }
        if (m_out == 0)
        {
            sndcnt = std::max<int64_t>(sndcnt, segment);
        }
        int64_t cwnd = static_cast<int64_t>(tcb->m_bytesInFlight) + sndcnt * unit;
        tcb->m_cWnd = static_cast<uint32_t>(std::max<int64_t>(cwnd, 0));
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        m_cwr = false;
        TcpPrrRecovery::ExitRecovery(tcb);
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        if (m_cwr)
        {
            m_out += (bytesSent + m_unit - 1) / m_unit; // segments: one per call
        }
        TcpPrrRecovery::UpdateBytesSent(bytesSent);
    }

  private:
    // Linux's segments, or bytes (--recovery=linux-cwr-bytes).
    int64_t Unit(Ptr<TcpSocketState> tcb)
    {
        m_unit = g_linuxCwrBytes ? 1 : tcb->m_segmentSize;
        return m_unit;
    }

    bool m_cwr{false};      // in CA_CWR since EnterRecovery
    int64_t m_unit{1};      // bytes per unit of the counters below
    int64_t m_priorCwnd{1}; // units
    int64_t m_delivered{0}; // units delivered in CWR
    int64_t m_out{0};       // units sent in CWR
};

// --recovery=ns3-cwr-entry-once sets it (RecoveryTypeId, dctcp_cases.cc).
bool g_ns3CwrEntryOnce = false;

class TcpNs3CwrRecovery : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpNs3CwrRecovery")
                                .SetParent<TcpPrrRecovery>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpNs3CwrRecovery>();
        return tid;
    }

    TcpNs3CwrRecovery() = default;

    TcpNs3CwrRecovery(const TcpNs3CwrRecovery& o)
        : TcpPrrRecovery(o),
          m_cwr(o.m_cwr),
          m_delivered(o.m_delivered),
          m_out(o.m_out),
          m_flight(o.m_flight)
    {
    }

    std::string GetName() const override
    {
        return "Ns3CwrRecovery";
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpNs3CwrRecovery>(this);
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_cwr = tcb->m_congState == TcpSocketState::CA_CWR;
        if (!m_cwr)
        {
            TcpPrrRecovery::EnterRecovery(tcb, dupAckCount, unAckDataCount, deliveredBytes);
            return;
        }
        m_out = 0;
        m_delivered = 0;
        m_flight = tcb->m_bytesInFlight;
        if (!g_ns3CwrEntryOnce)
        {
            Step(tcb, deliveredBytes, true);
        }
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        if (!m_cwr)
        {
            TcpPrrRecovery::DoRecovery(tcb, deliveredBytes, isDupAck);
            return;
        }
        Step(tcb, deliveredBytes, isDupAck);
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        m_cwr = false;
        TcpPrrRecovery::ExitRecovery(tcb);
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        if (m_cwr)
        {
            m_out += bytesSent;
        }
        TcpPrrRecovery::UpdateBytesSent(bytesSent);
    }

  private:
    // TcpPrrRecovery::DoRecovery's arithmetic, with its types (the header's list).
    void Step(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck)
    {
        uint32_t mss = tcb->m_segmentSize;
        if (isDupAck && m_delivered < m_flight)
        {
            deliveredBytes += mss;
        }
        if (deliveredBytes == 0)
        {
            return;
        }
        m_delivered += deliveredBytes;
        uint32_t ssthresh = tcb->m_ssThresh;
        uint32_t inFlight = tcb->m_bytesInFlight;
        int sendCount;
        if (inFlight > ssthresh)
        {
            uint32_t product = m_delivered * ssthresh; // 32 bits, as l. 90 multiplies
            sendCount = static_cast<int>(std::ceil(product * 1.0 / m_flight)) - static_cast<int>(m_out);
        }
        else
        {
            int limit = std::max(m_delivered - m_out, deliveredBytes); // unsigned, as l. 95
            if (tcb->m_isRetransDataAcked)
            {
                limit += mss;
            }
            sendCount = std::min(limit, static_cast<int>(ssthresh - inFlight));
        }
        sendCount = std::max(sendCount, static_cast<int>(m_out > 0 ? 0 : mss));
        tcb->m_cWnd = inFlight + sendCount;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    bool m_cwr{false};       // in CA_CWR since EnterRecovery
    uint32_t m_delivered{0}; // bytes delivered in CWR (TcpPrrRecovery's m_prrDelivered)
    uint32_t m_out{0};       // bytes sent in CWR (m_prrOut)
    uint32_t m_flight{0};    // bytes in flight at entry (m_recoveryFlightSize)
};

} // namespace ns3
