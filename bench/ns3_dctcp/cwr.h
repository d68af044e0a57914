// --recovery=linux-cwr (a counterfactual, dctcp_cases.cc, included once): TcpPrrRecovery, except
// that in CA_CWR (an ECE's reduction) cwnd comes down as Linux's tcp_cwnd_reduction lowers it
// (tcp_input.c; tcplab's `cwr_reduction = "prr"`, tcp/cwr.rs), in segments:
//   entry (tcp_init_cwnd_reduction): prior_cwnd = cwnd, delivered = out = 0, cwnd unchanged;
//   every ACK that delivers: delivered += its segments; if in flight > ssthresh,
//   sndcnt = ceil(ssthresh x delivered / prior_cwnd) - out, else
//   sndcnt = min(ssthresh - in flight, max(delivered - out, its segments) + 1);
//   sndcnt = max(sndcnt, 1 if out = 0); cwnd = in flight + sndcnt.
// Where ns-3's TcpPrrRecovery differs in CWR (tcp-prr-recovery.cc, 3.44): its RecoverFS is the
// bytes in flight at entry, not cwnd (l. 64); EnterRecovery runs DoRecovery as for a duplicate
// ACK (l. 66), adding one segment to the entering ACK's bytes (l. 74-77), and TcpSocketBase then
// runs DoRecovery for the same ACK again in CA_CWR (tcp-socket-base.cc l. 2156): the entering
// ACK counts twice and a segment more; its slow-start bound adds a segment only when a
// retransmission was acknowledged (l. 99-105), never in CWR. Fast recovery (CA_RECOVERY) is
// TcpPrrRecovery's, unchanged.

namespace ns3
{

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
        uint32_t mss = tcb->m_segmentSize;
        m_priorCwnd = std::max<uint32_t>(tcb->m_cWnd / mss, 1);
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
        uint32_t mss = tcb->m_segmentSize;
        int64_t newly = (deliveredBytes + mss - 1) / mss;
        if (newly == 0)
        {
            return;
        }
        m_delivered += newly;
        int64_t ssthresh = tcb->m_ssThresh / mss;
        int64_t inFlight = (tcb->m_bytesInFlight + mss - 1) / mss;
        int64_t delta = ssthresh - inFlight;
        int64_t sndcnt;
        if (delta < 0)
        {
            sndcnt = (ssthresh * m_delivered + m_priorCwnd - 1) / m_priorCwnd - m_out;
        }
        else
        {
            // In CA_CWR TcpSocketBase calls DoRecovery only for an ACK that advanced snd_una.
            sndcnt = std::min(delta, std::max(m_delivered - m_out, newly) + 1);
        }
        if (m_out == 0)
        {
            sndcnt = std::max<int64_t>(sndcnt, 1);
        }
        int64_t cwnd = static_cast<int64_t>(tcb->m_bytesInFlight) + sndcnt * mss;
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
        if (m_cwr && bytesSent > 0)
        {
            m_out += 1; // one segment per call (TcpSocketBase::SendDataPacket)
        }
        TcpPrrRecovery::UpdateBytesSent(bytesSent);
    }

  private:
    bool m_cwr{false};      // in CA_CWR since EnterRecovery
    int64_t m_priorCwnd{1}; // segments
    int64_t m_delivered{0}; // segments delivered in CWR
    int64_t m_out{0};       // segments sent in CWR
};

} // namespace ns3
