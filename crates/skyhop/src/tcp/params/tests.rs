//! The table's generators checked: each profile's resolved defaults, the
//! pairing of recoveries, the docs' units and the range messages.
use super::*;

#[test]
fn docs_write_quantities_in_units_the_parser_reads() {
    assert_eq!(show_size(4_000_000), "4 MB");
    assert_eq!(show_size(4_194_304), "4 MiB");
    assert_eq!(show_size(1460), "1460 B");
    assert_eq!(show_size(MAX_BUFFER), "1000 GB");
    assert_eq!(show_size(u64::MAX), "unlimited");
    assert_eq!(show_dur(Dur::from_millis(200)), "200 ms");
    assert_eq!(show_dur(Dur::from_secs(120)), "120 s");
    assert_eq!(show_dur(MIN_RTO), "1 µs");
    assert_eq!(Ranges::mss.describe(), "1 B … 65000 B");
    assert_eq!(Ranges::rto_min.describe(), "0 s … 10⁷ s");
    assert_eq!(Ranges::initial_window.describe(), "1 … 10⁶ segments");
    assert_eq!(Ranges::hybla_rtt0.describe(), "(0 s, 10⁷ s]");
    for text in ["4 MB", "4 MiB", "1000 GB", "1460 B"] {
        assert!(Size::parse(text).is_ok(), "{text}");
    }
    for text in ["200 ms", "120 s", "1 µs", "25 ms"] {
        assert!(Duration::parse(text).is_ok(), "{text}");
    }
}

#[test]
fn each_profile_resolves_to_what_its_hosts_do() {
    use crate::tcp::config::TcpConfig;
    use crate::tcp::{CcKind, RecKind};
    let l = TcpConfig::linux();
    assert_eq!(
        (l.variant.cc, l.variant.recovery),
        (CcKind::Cubic, RecKind::Prr)
    );
    assert!(l.variant.sack && l.rack && l.frto && l.timestamps && l.hystart);
    assert_eq!((l.mss, l.header_bytes), (1448, 52), "timestamps take 12 B");
    assert_eq!(
        (l.initial_window, l.rto_min, l.rto_max),
        (10, Dur::from_millis(200), Dur::from_secs(120))
    );
    assert_eq!(
        (l.delayed_ack, l.delayed_ack_timeout),
        (true, Dur::from_millis(40))
    );
    assert_eq!(l.send_buffer, 4_194_304);
    let s = TcpConfig::default();
    assert_eq!(
        (s.variant.cc, s.variant.recovery),
        (CcKind::Reno, RecKind::NewReno)
    );
    assert!(!s.variant.sack && !s.rack && !s.frto && !s.timestamps && !s.delayed_ack);
    assert_eq!((s.mss, s.header_bytes, s.initial_window), (1460, 40, 1));
    assert_eq!(
        (s.rto_min, s.rto_max),
        (Dur::from_secs(1), Dur::from_secs(60))
    );
    assert_eq!(s.send_buffer, u64::MAX);
    // The table's own values, before `finish`: the MSS of a segment
    // without options under both.
    assert_eq!(TcpConfig::table_defaults(Profile::Linux).mss, 1460);
}

#[test]
fn a_host_pairs_recoveries_and_an_explicit_recovery_wins() {
    use crate::tcp::config::{TcpConfig, Variant};
    use crate::tcp::RecKind;
    let with = |variant: &str, profile, recovery| {
        let mut c = TcpConfig::table_defaults(profile);
        c.variant = Variant::parse(variant).unwrap();
        c.finish(profile, recovery);
        (c.variant.recovery, c.variant.sack, c.rack, c.frto)
    };
    // Linux: Reno AIMD with SACK + PRR, BBR with SACK, AeroTCP its own.
    assert_eq!(
        with("newreno", Profile::Linux, None),
        (RecKind::Prr, true, true, true)
    );
    assert_eq!(
        with("bbr", Profile::Linux, None),
        (RecKind::Sack, true, true, true)
    );
    assert_eq!(with("aerotcp", Profile::Linux, None).0, RecKind::Aero);
    // RACK (and F-RTO with it) only over the scoreboard.
    assert_eq!(
        with("cubic", Profile::Linux, Some(RecKind::NewReno)),
        (RecKind::NewReno, false, false, false)
    );
    // The studies keep the variant's recovery.
    assert_eq!(
        with("westwood", Profile::Studies, None),
        (RecKind::NewReno, false, false, false)
    );
    assert_eq!(
        with("sack", Profile::Studies, Some(RecKind::Prr)).0,
        RecKind::Prr
    );
}

#[test]
fn the_ns2_profile_is_ns2s_tcp_of_2002_2003_with_its_agents() {
    use crate::tcp::config::{TcpConfig, Variant};
    use crate::tcp::RecKind;
    let c = TcpConfig::for_profile(Profile::Ns2);
    // windowInit_ 2 after the first segment's ACK; tcpTick_ 10 ms;
    // rtxcur_init_ 6 s, minrto_ 1 s, maxrto_ 64 s; singledup_ 1; no
    // partial window deflation (until 2003-05-05); maxburst_ 0.
    assert_eq!((c.initial_window, c.handshake), (2, true));
    assert_eq!(c.rtt_tick, Dur::from_millis(10));
    assert!(c.rto_min_before_backoff);
    assert_eq!(
        (c.rto_initial, c.rto_min, c.rto_max),
        (Dur::from_secs(6), Dur::from_secs(1), Dur::from_secs(64))
    );
    assert!(c.limited_transmit && !c.delayed_ack && !c.partial_window_deflation);
    assert_eq!(c.delayed_ack_timeout, Dur::from_millis(100));
    assert_eq!(c.maxburst, 0);
    // ssthresh_ starts at window_, the receive window, unless set.
    assert_eq!(c.initial_ssthresh, c.rcv_buffer);
    // The other profiles keep RFC 6298's estimator and deflate.
    for p in [Profile::Studies, Profile::Linux] {
        let o = TcpConfig::for_profile(p);
        assert_eq!(o.rtt_tick, Dur::ZERO);
        assert!(o.partial_window_deflation);
        assert_eq!(o.initial_ssthresh, UNLIMITED_SSTHRESH);
    }
    // The recoveries are ns-2's agents, a variant's or one named.
    let with = |variant: &str, recovery| {
        let mut c = TcpConfig::table_defaults(Profile::Ns2);
        c.variant = Variant::parse(variant).unwrap();
        c.finish(Profile::Ns2, recovery);
        (c.variant.recovery, c.variant.sack)
    };
    assert_eq!(with("newreno", None), (RecKind::Ns2NewReno, false));
    assert_eq!(with("newreno-sbs", None), (RecKind::Ns2NewRenoSbs, false));
    assert_eq!(with("westwood-2001", None), (RecKind::Ns2NewReno, false));
    assert_eq!(with("sack", None), (RecKind::Ns2Sack1, true));
    assert_eq!(
        with("westwood", Some(RecKind::NewRenoSbs)),
        (RecKind::Ns2NewRenoSbs, false)
    );
    assert_eq!(
        with("newreno", Some(RecKind::Ns2Sack1)),
        (RecKind::Ns2Sack1, true)
    );
    assert_eq!(with("tahoe", None).0, RecKind::Tahoe);
}

#[test]
fn range_messages_name_the_value_and_the_bounds() {
    assert_eq!(
        Size(0).in_range(&Ranges::mss).unwrap_err(),
        "0 B is out of range: must be between 1 B and 65000 B"
    );
    assert_eq!(
        0u32.in_range(&Ranges::initial_window).unwrap_err(),
        "0 is out of range: must be between 1 and 1000000 segments"
    );
    assert_eq!(
        1001u32.in_range(&Ranges::dupthresh).unwrap_err(),
        "1001 is out of range: must be between 1 and 1000"
    );
    assert_eq!(
        5u32.in_range(&Ranges::sack_blocks).unwrap_err(),
        "5 is more than the 4 an ACK can carry"
    );
    assert_eq!(
        Duration(Dur::ZERO)
            .in_range(&Ranges::hybla_rtt0)
            .unwrap_err(),
        "must be positive"
    );
    assert_eq!(
        Duration(Dur::ZERO)
            .in_range(&Ranges::rto_initial)
            .unwrap_err(),
        "0 ms is out of range: must be between 1 us and 10000000000 ms"
    );
    assert!(4u32.in_range(&Ranges::sack_blocks).is_ok());
    assert!(true.in_range(&Ranges::rack).is_ok());
}
