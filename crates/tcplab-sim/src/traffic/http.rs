//! HTTP-like sessions (Parvez et al. 2010 Sec. IV-A, after the model of their refs. [24, 35]):
//! a client sends a request to its dedicated server, the server sends a response of
//! Pareto-distributed size (mean 48 KB, shape 1.2), and once the response is completely
//! acknowledged the client thinks for an exponential time (mean 500 ms) before the next request.
//!
//! The request is a real TCP write (default 200 bytes: one packet) on a client-to-server
//! connection, not a fixed delay: it crosses the reverse direction of the network, so it sees
//! that direction's queues and losses (recovered by TCP like any data), as Parvez's "single
//! request packet across the (reverse) bottleneck link". The response starts when the server
//! has received the whole request. Both connections persist across the session's requests
//! (HTTP/1.1 keep-alive): the sender keeps its window between responses, since the shared
//! sender has no slow-start restart after idle (RFC 5681 Sec. 4.1).

use super::dist;
use super::SourceCounters;
use crate::rng::Stream;
use crate::scenario::{self, TrafficSpec};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for the first request or between responses.
    Thinking,
    /// The request is on its way; the server has to receive `requested` bytes in all.
    Requesting,
    /// The response is on its way.
    Responding,
}

#[derive(Clone, Debug)]
pub struct HttpSession {
    pub group: u32,
    /// Flow ids of the two connections.
    pub request_flow: u32,
    pub response_flow: u32,
    rng: Stream,
    request: u64,
    response_mean: f64,
    response_shape: f64,
    response_max: u64,
    think_mean_ns: f64,
    state: State,
    /// Request bytes written so far (the server's receiver must deliver this many).
    requested: u64,
    request_at: SimTime,
    response_size: u64,
    pub counters: SourceCounters,
    pub snapshot: SourceCounters,
}

impl HttpSession {
    pub fn new(t: &TrafficSpec, group: u32, request_flow: u32, response_flow: u32, rng: Stream) -> Self {
        HttpSession {
            group,
            request_flow,
            response_flow,
            rng,
            request: t.request.map_or(scenario::DEFAULT_REQUEST, |s| s.0),
            response_mean: t.response_mean.map_or(scenario::DEFAULT_RESPONSE_MEAN, |s| s.0) as f64,
            response_shape: t.response_shape.unwrap_or(scenario::DEFAULT_SHAPE),
            response_max: t
                .response_max
                .map_or(scenario::MAX_RESPONSE, |s| s.0.min(scenario::MAX_RESPONSE)),
            think_mean_ns: t
                .think_mean
                .map_or(SimTime::from_ms(scenario::DEFAULT_THINK_MS), |d| d.0)
                .ns() as f64,
            state: State::Thinking,
            requested: 0,
            request_at: SimTime::ZERO,
            response_size: 0,
            counters: SourceCounters::default(),
            snapshot: SourceCounters::default(),
        }
    }

    /// The session's timer (its start, or the end of a think time): the client writes a
    /// request of the returned size on the request connection.
    pub fn on_timer(&mut self, now: SimTime) -> Option<u64> {
        if self.state != State::Thinking {
            return None;
        }
        self.state = State::Requesting;
        self.requested += self.request;
        self.request_at = now;
        Some(self.request)
    }

    /// The server's receiver has delivered `delivered` request bytes in all. Once the whole
    /// request is in, the server writes a response of the returned size.
    pub fn on_request_delivered(&mut self, delivered: u64) -> Option<u64> {
        if self.state != State::Requesting || delivered < self.requested {
            return None;
        }
        self.state = State::Responding;
        let x = dist::pareto(&mut self.rng, self.response_mean, self.response_shape);
        self.response_size = (x.round() as u64).clamp(1, self.response_max);
        Some(self.response_size)
    }

    /// The response connection's sender has everything acknowledged: the response is
    /// complete. Returns when the next request leaves (after an exponential think time).
    pub fn on_response_acked(&mut self, now: SimTime) -> Option<SimTime> {
        if self.state != State::Responding {
            return None;
        }
        self.state = State::Thinking;
        self.counters.responses += 1;
        self.counters.response_bytes += self.response_size;
        self.counters.response_time_ns += (now.ns() - self.request_at.ns()) as u128;
        let think = dist::ns(dist::exponential(&mut self.rng, self.think_mean_ns));
        Some(now.saturating_add(think))
    }
}
