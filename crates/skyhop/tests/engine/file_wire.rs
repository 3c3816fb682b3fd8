//! A file counted on the wire (`flows.<id>.headers = false`): ns-2's FTP
//! before `useHeaders_` (2001-11-28) cut the application's bytes into whole
//! `packetSize_` packets and added no header, so the 5 MB of the HAPS study
//! were 3 334 packets of 1500 B (5 001 000 B on the wire).
//!
//! `geo_single.toml`: A - SAT - B, 1 Mb/s, 125 ms per hop. With 4000-packet
//! queues nothing is ever dropped (the file is fewer packets), so every
//! packet crosses each link once.

use crate::common;

use common::*;
use skyhop::scenario::Plan;
use skyhop::RunResult;

const QUEUES: [&str; 2] = ["links.up.queue=4000", "links.down.queue=4000"];

fn go(sets: &[&str]) -> RunResult {
    let mut all = QUEUES.to_vec();
    all.extend_from_slice(sets);
    run_ok(&scenario_studies("geo_single.toml", &all), 1)
}

/// Packets and bytes of the data direction of the uplink (A -> SAT).
fn uplink(r: &RunResult) -> (u64, u64) {
    let l = (r.links.iter())
        .find(|l| l.link == "up" && l.dir == "forward")
        .expect("the uplink's forward direction");
    (l.packets, l.bytes)
}

#[test]
fn five_megabytes_on_the_wire_are_3334_packets_of_1500_bytes() {
    let r = go(&["flows.ftp.headers=false"]);
    let f = &r.flows["ftp"];
    assert!(f.completion_time_s.is_some());
    assert_eq!(f.retransmissions, 0);
    // ceil(5 000 000 / 1500) = 3334 full segments (the last rounded up, as
    // ns-2's sendmsg does), each 1460 B of stream under a 40 B header.
    assert_eq!(f.legs[0].segments_sent, 3334);
    assert_eq!(f.bytes_delivered, 3334 * 1460);
    assert_eq!(uplink(&r), (3334, 3334 * 1500));
    assert_eq!(3334 * 1500, 5_001_000);
    // The default counts payload: 5 000 000 B in ceil(5e6 / 1460) = 3425
    // segments (3424 full and one of 1040 B), each adding 40 B.
    let d = go(&[]);
    assert_eq!(d.flows["ftp"].legs[0].segments_sent, 3425);
    assert_eq!(d.flows["ftp"].bytes_delivered, 5_000_000);
    assert_eq!(uplink(&d), (3425, 5_000_000 + 3425 * 40));
}

#[test]
fn the_cut_follows_the_full_segment_and_ns2_adds_its_first_40_byte_segment() {
    // Timestamps: 1448 B of stream under 52 B, still 1500 B packets.
    let r = go(&["flows.ftp.headers=false", "tcp.timestamps=true"]);
    assert_eq!(r.flows["ftp"].legs[0].segments_sent, 3334);
    assert_eq!(r.flows["ftp"].bytes_delivered, 3334 * 1448);
    assert_eq!(uplink(&r), (3334, 5_001_000));
    // 1000-byte packets (mss 960 + 40): 5000 of them, exactly.
    let r = go(&["flows.ftp.headers=false", "tcp.mss=\"960 B\""]);
    assert_eq!(uplink(&r), (5000, 5_000_000));
    // ns-2's agent opens with a 40-byte segment (syn_) before the data.
    let r = go(&["flows.ftp.headers=false", "tcp.profile=\"ns2\""]);
    assert_eq!(r.flows["ftp"].legs[0].segments_sent, 3335);
    assert_eq!(uplink(&r), (3335, 5_001_000 + 40));
}

#[test]
fn it_is_the_same_run_as_the_file_of_whole_segments_it_stands_for() {
    // Under ns2 with losses and a proxy: headers = false on 5 MB moves the
    // same packets as a payload file of 3334 x 1460 B, event for event.
    let lossy = [
        "tcp.profile=\"ns2\"",
        "links.up.per=0.01",
        "flows.ftp.proxies=[\"SAT\"]",
        "flows.ftp.size=\"1 MB\"",
    ];
    let wire = go(&[&lossy[..], &["flows.ftp.headers=false"]].concat());
    // ceil(1e6 / 1500) = 667 packets.
    let payload = go(&[&lossy[..], &["flows.ftp.size=\"973820 B\""]].concat());
    assert_eq!(667 * 1460, 973_820);
    assert!(wire.flows["ftp"].retransmissions > 0);
    assert_eq!(
        serde_json::to_string(&wire).unwrap(),
        serde_json::to_string(&payload).unwrap()
    );
}

#[test]
fn the_plan_describes_the_cut() {
    let scn = scenario_studies("geo_single.toml", &["flows.ftp.headers=false"]);
    let plan = Plan::build(&scn, "geo_single.toml").unwrap();
    assert_eq!(
        plan.flows[0].app.describe(),
        "file of 5000000 B on the wire, no header added: 3334 packets of 1500 B (4867640 B of stream)"
    );
}
