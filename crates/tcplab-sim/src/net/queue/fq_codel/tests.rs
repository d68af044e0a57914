//! FQ-CoDel known answers (RFC 8290): deficit round robin order, new flows first, the sparse
//! flow optimisation, overflow drops from the fattest queue, deterministic hashing.

use super::*;
use crate::net::queue::tests::pkt;
use crate::net::queue::LinkContext;

const T0: SimTime = SimTime::ZERO;

fn fq(quantum: u32, limit: u64) -> FqCodel {
    FqCodel::new(CodelParams::resolve(None, None, None), quantum, 1024, limit, 0)
}

/// A packet of flow `flow` (TCP data) of `size` bytes; `seq` names it in the assertions.
fn p(flow: u32, seq: u64, size: u32) -> Packet {
    Packet {
        flow,
        ..pkt(seq, size)
    }
}

/// Offers a packet at T0; returns the packet dropped, if any.
fn offer(q: &mut FqCodel, pkt: Packet) -> Option<Packet> {
    let mut drops = Drops::new();
    q.enqueue(T0, pkt, &mut drops, &mut Marks::new())
        .expect("FQ-CoDel admits every arrival");
    assert!(drops.len() <= 1);
    drops.first().map(|d| {
        assert_eq!(d.1, DropCause::Overflow);
        d.0
    })
}

/// Takes the next packet at T0 (sojourn 0: CoDel never drops): (flow, seq).
fn take(q: &mut FqCodel) -> Option<(u32, u64)> {
    let mut drops = Drops::new();
    let r = q.dequeue(T0, &mut drops, &mut Marks::new()).map(|p| (p.flow, p.seg.0 as u64));
    assert!(drops.is_empty());
    r
}

fn distinct_buckets(q: &FqCodel, flows: &[u32]) {
    let mut b: Vec<usize> = flows.iter().map(|&f| q.bucket(&p(f, 0, 100))).collect();
    b.sort_unstable();
    b.dedup();
    assert_eq!(b.len(), flows.len(), "test flows share a bucket");
}

#[test]
fn deficit_round_robin_serves_a_quantum_of_bytes_per_round() {
    // Quantum 3000: flow 1 (1000-byte packets) sends three per round, flow 2 (1500 bytes)
    // two. Both start on the new list with 3000 bytes of credit; a queue is served while its
    // credit is positive, then gets another quantum and goes to the end of the old list.
    let mut q = fq(3000, 10240);
    distinct_buckets(&q, &[1, 2]);
    for s in 1..=6 {
        offer(&mut q, p(1, s, 1000));
    }
    for s in 1..=6 {
        offer(&mut q, p(2, s, 1500));
    }
    let order: Vec<(u32, u64)> = std::iter::from_fn(|| take(&mut q)).collect();
    assert_eq!(
        order,
        vec![
            (1, 1),
            (1, 2),
            (1, 3),
            (2, 1),
            (2, 2),
            (1, 4),
            (1, 5),
            (1, 6),
            (2, 3),
            (2, 4),
            (2, 5),
            (2, 6)
        ]
    );
    assert_eq!((q.len(), q.bytes()), (0, 0));
}

#[test]
fn a_new_flow_is_served_before_the_backlogged_ones() {
    let mut q = fq(1500, 10240);
    distinct_buckets(&q, &[1, 2, 3]);
    for s in 1..=10 {
        offer(&mut q, p(1, s, 1500));
        offer(&mut q, p(2, s, 1500));
    }
    // Both flows have used their first quantum: they are old now.
    assert_eq!((take(&mut q), take(&mut q)), (Some((1, 1)), Some((2, 1))));
    offer(&mut q, p(3, 1, 1500));
    assert_eq!(take(&mut q), Some((3, 1)), "the new flow goes first");
    assert_eq!(take(&mut q), Some((1, 2)));
}

#[test]
fn a_sparse_flow_never_waits_behind_a_backlog() {
    // Flow 9 sends a 100-byte packet every third departure; flow 1 keeps 30 packets queued. Each
    // of flow 9's packets finds its queue inactive (it emptied and left the old list), so it is
    // new again and leaves at the next dequeue. In a FIFO it would wait behind the backlog.
    let mut q = fq(1500, 10240);
    distinct_buckets(&q, &[1, 9]);
    for s in 1..=30 {
        offer(&mut q, p(1, s, 1500));
    }
    take(&mut q);
    for k in 1..=8 {
        offer(&mut q, p(9, k, 100));
        assert_eq!(take(&mut q), Some((9, k)), "sparse packet {k}");
        assert_eq!(take(&mut q).map(|x| x.0), Some(1));
        assert_eq!(take(&mut q).map(|x| x.0), Some(1));
    }
}

#[test]
fn overflow_drops_the_head_of_the_fattest_queue() {
    // Limit 5 packets: flow 1 holds 3 x 1500 = 4500 bytes, flow 2 holds 2 x 1000.
    let mut q = fq(1514, 5);
    distinct_buckets(&q, &[1, 2, 3]);
    for s in 1..=3 {
        assert_eq!(offer(&mut q, p(1, s, 1500)), None);
    }
    for s in 1..=2 {
        assert_eq!(offer(&mut q, p(2, s, 1000)), None);
    }
    // A sixth packet (flow 2's) is admitted; flow 1, the fattest, loses its head.
    let v = offer(&mut q, p(2, 3, 1000)).expect("over the limit");
    assert_eq!((v.flow, v.seg.0 as u64), (1, 1));
    assert_eq!((q.len(), q.bytes()), (5, 6000));
    // Flows 1 and 2 now hold 3000 bytes each: a tie goes to the queue used first (flow 1).
    let v = offer(&mut q, p(3, 1, 1000)).expect("over the limit");
    assert_eq!((v.flow, v.seg.0 as u64), (1, 2));
    // Flow 2 grows to 4000 bytes with its arrival: its head goes, not the arrival.
    let v = offer(&mut q, p(2, 4, 1000)).expect("over the limit");
    assert_eq!((v.flow, v.seg.0 as u64), (2, 1));
    assert_eq!((q.len(), q.bytes()), (5, 5500));
    // What is left, in DRR order with a 1514-byte quantum: flow 1's 1500 bytes; flow 2 sends
    // 2000 (its credit stays positive after the first); flow 3; flow 2 again.
    let left: Vec<(u32, u64)> = std::iter::from_fn(|| take(&mut q)).collect();
    assert_eq!(left, vec![(1, 3), (2, 2), (2, 3), (3, 1), (2, 4)]);
}

#[test]
fn flows_hash_deterministically_per_link() {
    let build = |name: &str| {
        let ctx = LinkContext {
            name,
            rate_bps: 1_000_000,
            seed: 7,
        };
        <FqCodel as QueueDiscipline>::build(&FqCodelSpec::default(), Limit::Packets(100), &ctx)
    };
    let buckets = |q: &FqCodel| -> Vec<usize> {
        (0..512)
            .flat_map(|f| {
                [PacketKind::Data, PacketKind::Ack, PacketKind::Udp]
                    .map(|kind| q.bucket(&Packet { kind, ..p(f, 0, 100) }))
            })
            .collect()
    };
    let a = buckets(&build("x.fwd"));
    assert_eq!(a, buckets(&build("x.fwd")), "same seed and link, same buckets");
    assert_ne!(a, buckets(&build("x.rev")), "each link has its own perturbation");
    assert!(a.iter().all(|&b| b < 1024));
    // 1536 keys into 1024 buckets: about 1024 (1 - e^-1.5) = 795 distinct (sd ~ 9).
    let mut d = a.clone();
    d.sort_unstable();
    d.dedup();
    assert!(d.len() > 740 && d.len() < 850, "{}", d.len());
}
