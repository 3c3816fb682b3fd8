//! Rates as people write them.

use skyhop::units::Rate;

#[test]
fn rates_accept_the_usual_spellings() {
    for (text, bps) in [
        ("10 Mb/s", 10_000_000),
        ("10 mbps", 10_000_000),
        ("10 Mbps", 10_000_000),
        ("64 kb/s", 64_000),
        ("64 kbps", 64_000),
        ("2 Gb/s", 2_000_000_000),
        ("9600 b/s", 9600),
        ("1.5 Mbit/s", 1_500_000),
    ] {
        assert_eq!(Rate::parse(text).unwrap().0, bps, "{text}");
    }
    assert!(Rate::parse("10 MB/s").unwrap_err().contains("unknown unit"));
}
