//! RFC 5681 (4.1) restart after idle: cwnd back to at most the initial
//! window when the sender has sent nothing for more than one RTO.

use super::harness::*;

fn trace(idle_restart: bool, idle_ms: u64) -> Vec<String> {
    let mut c = cfg("newreno");
    c.initial_window = 2;
    c.idle_restart = idle_restart;
    let mut h = H::new(c);
    // Slow start over two rounds of 500 ms: cwnd 2000 -> 3000 -> 4000
    // (one ACK per round, each covering two segments: +1 SMSS per ACK,
    // RFC 5681 (3.1)); then everything is acknowledged.
    let mut v = vec![h.at(0).app(4 * MSS), h.at(500).ack(2), h.at(1000).ack(4)];
    v.push(format!("cwnd {}", h.cwnd()));
    // A short pause (500 ms, below the 1 s minimum RTO): no restart, the
    // next four segments leave at once; their ACK makes cwnd 5000.
    v.push(h.at(1500).app(4 * MSS));
    v.push(h.at(2000).ack(8));
    // Then `idle_ms` of silence and five more segments to send.
    v.push(h.at(2000 + idle_ms).app(5 * MSS));
    v.push(format!("cwnd {} ssthresh {}", h.cwnd(), h.ssthresh()));
    v
}

#[test]
fn after_more_than_one_rto_idle_the_window_restarts_from_the_initial_window() {
    // 10 s idle (the RTO after three 500 ms samples is SRTT + 4 RTTVAR =
    // 500 + 4 × 140.625 = 1062.5 ms; RFC 6298 (2.2), (2.3)): RW =
    // min(IW, cwnd) = 2000, so only 8 and 9 leave; ssthresh is untouched.
    let ssthresh = cfg("newreno").initial_ssthresh;
    assert_eq!(
        trace(true, 10_000),
        [
            "0 1",
            "2 3",
            "",
            "cwnd 4000",
            "4 5 6 7",
            "",
            "8 9",
            &format!("cwnd 2000 ssthresh {ssthresh}")
        ]
    );
    // Without the rule the whole 5000-byte window goes out.
    assert_eq!(
        trace(false, 10_000)[6..],
        ["8 9 10 11 12", &format!("cwnd 5000 ssthresh {ssthresh}")]
    );
    // The interval runs from the last data sent (4..7 at 1.5 s): at 2.4 s
    // that is 900 ms, below the RTO, so no restart; at 2.6 s it is 1.1 s.
    assert_eq!(trace(true, 400)[6], "8 9 10 11 12");
    assert_eq!(trace(true, 600)[6], "8 9");
}
