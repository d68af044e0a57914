// fig17's DCTCP: ns-3's TcpDctcp with counters, and (--dctcpEcho, counterfactuals) other rules
// for the receiver's CE echo (dctcp_cases.cc, included once).
//
// ns-3's receiver (tcp-dctcp.cc, CeState0to1 / CeState1to0) runs from TcpSocketBase::ForwardUp
// before the segment is in the receive buffer. On a change of CE state with an ACK delayed it
// sends an ACK up to m_priorRcvNxt, which it recorded at the previous segment's arrival, also
// before that segment was queued: the ACK stops short of the delayed segment. And it leaves the
// arriving segment to the delayed-ACK counter, which that ACK has just reset.
//
// --dctcpEcho=prior: that ACK covers everything received so far (the data before the arriving
// segment), with the old state; the arriving segment is left to the delayed-ACK counter as
// ns-3 leaves it. RFC 8257 Sec. 3.2's two ACKs without the second being immediate: tcplab's
// receiver with `ack = "delayed"`.
// --dctcpEcho=linux: as prior, and the arriving segment is acknowledged at once with the new
// state (Linux's dctcp_ece_ack_update, tcp_dctcp.h: ICSK_ACK_NOW; RFC 8257 Sec. 3.2: "send an
// immediate ACK"). The sender's side is TcpDctcp's in every mode.

namespace
{

// --dctcpEcho: "ns3" (TcpDctcp's receiver), "prior" or "linux".
std::string g_dctcpEcho = "ns3";

// Inside the window: data segments that arrived ECT or CE at the receivers, and those CE.
uint64_t g_rcvEct = 0, g_rcvCe = 0;
// Inside the window: the senders' alpha updates' ECE-marked and total bytes (TcpDctcp's
// CongestionEstimate trace: m_ackedBytesEcn, m_ackedBytesTotal), summed.
uint64_t g_sndEceBytes = 0, g_sndBytes = 0;

void
OnEstimate(uint32_t ecnBytes, uint32_t totalBytes, double)
{
    if (InWindow())
    {
        g_sndEceBytes += ecnBytes;
        g_sndBytes += totalBytes;
    }
}

} // namespace

namespace ns3
{

class TcpDctcpEcho : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpEcho")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpEcho>();
        return tid;
    }

    TcpDctcpEcho() = default;

    TcpDctcpEcho(const TcpDctcpEcho& o)
        : TcpDctcp(o),
          m_ce(o.m_ce),
          m_delayed(o.m_delayed),
          m_ackNow(o.m_ackNow)
    {
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpEcho>(this);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        bool ecnEvent = event == TcpSocketState::CA_EVENT_ECN_IS_CE ||
                        event == TcpSocketState::CA_EVENT_ECN_NO_CE;
        bool ce = event == TcpSocketState::CA_EVENT_ECN_IS_CE;
        // A data receiver has sent nothing beyond its SYN (the sinks send no data); a sender's
        // ECN events are its ACKs'.
        if (ecnEvent && tcb->m_highTxMark.Get() <= SequenceNumber32(1) && InWindow())
        {
            g_rcvEct++;
            g_rcvCe += ce;
        }
        if (g_dctcpEcho == "ns3")
        {
            TcpDctcp::CwndEvent(tcb, event);
            return;
        }
        switch (event)
        {
        case TcpSocketState::CA_EVENT_ECN_IS_CE:
        case TcpSocketState::CA_EVENT_ECN_NO_CE:
            if (ce != m_ce)
            {
                if (m_delayed)
                {
                    // NextRxSequence: everything before this segment (not yet queued).
                    tcb->m_sendEmptyPacketCallback(m_ce ? (TcpHeader::ACK | TcpHeader::ECE)
                                                        : TcpHeader::ACK);
                    m_delayed = false;
                }
                if (g_dctcpEcho == "linux")
                {
                    m_ackNow = true;
                    Simulator::ScheduleNow(&TcpDctcpEcho::AckNow, this, tcb);
                }
            }
            m_ce = ce;
            // As TcpDctcp: ForwardUp has set ECN_CE_RCVD for a CE arrival; a non-CE one ends it.
            if (!ce && (tcb->m_ecnState.Get() == TcpSocketState::ECN_CE_RCVD ||
                        tcb->m_ecnState.Get() == TcpSocketState::ECN_SENDING_ECE))
            {
                tcb->m_ecnState = TcpSocketState::ECN_IDLE;
            }
            return;
        case TcpSocketState::CA_EVENT_DELAYED_ACK:
            m_delayed = true;
            break;
        case TcpSocketState::CA_EVENT_NON_DELAYED_ACK:
            // ReceivedData acknowledged the segment itself (with ECE if CE state).
            m_delayed = false;
            m_ackNow = false;
            break;
        default:
            break;
        }
        TcpDctcp::CwndEvent(tcb, event);
    }

  private:
    // After the arriving segment is queued (ScheduleNow runs once ForwardUp has returned): its
    // ACK, unless ReceivedData sent one.
    void AckNow(Ptr<TcpSocketState> tcb)
    {
        if (!m_ackNow)
        {
            return;
        }
        m_ackNow = false;
        m_delayed = false;
        if (m_ce)
        {
            tcb->m_sendEmptyPacketCallback(TcpHeader::ACK | TcpHeader::ECE);
            tcb->m_ecnState = TcpSocketState::ECN_SENDING_ECE;
        }
        else
        {
            tcb->m_sendEmptyPacketCallback(TcpHeader::ACK);
        }
    }

    bool m_ce{false};      // the CE state of the last data segment
    bool m_delayed{false}; // an ACK is delayed (CA_EVENT_DELAYED_ACK since the last ACK)
    bool m_ackNow{false};  // the last arrival changed the CE state and awaits its ACK
};

} // namespace ns3
