//! A run whose packets in flight and queued would need more memory than
//! `SKYHOP_MEMORY_LIMIT` is refused before it starts, with the estimate.
//! (Its own test binary: it sets the environment variable.)

use skyhop::scenario::load_str;

const BASE: &str = r#"
[run]
duration = "10 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "100 Gbps"
delay = "125 ms"
[flows.f]
from = "A"
to = "B"
"#;

#[test]
fn a_run_needing_more_memory_than_the_limit_is_refused_with_the_estimate() {
    std::env::set_var("SKYHOP_MEMORY_LIMIT", "200 MB");
    // The default 4 MB window: a few thousand packets.
    load_str(BASE, "t.toml", &[]).unwrap();
    // A 10 GB window on a 3 GB bandwidth-delay product: ~2·10^6 packets, ~550 MB.
    let e = load_str(BASE, "t.toml", &["tcp.rcv_buffer=\"10 GB\"".into()]).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("t.toml", "flows.f"),
        "{e}"
    );
    assert!(e.message.contains("would need about"), "{e}");
    assert!(e.message.contains("limit of 200000000 B"), "{e}");
    // Link queues count too.
    let e = load_str(BASE, "t.toml", &["links.ab.queue=4000000".into()]).unwrap_err();
    assert_eq!(e.key, "links.ab.queue", "{e}");
    // A constellation's positions and routing state count too.
    let leo = r#"
[run]
duration = "10 s"
[nodes.A]
lat = 41.9
lon = 12.5
[nodes.B]
lat = 50.1
lon = 8.7
[constellation]
preset = "starlink-550"
gsl = { rate = "1 Gbps" }
[flows.f]
from = "A"
to = "B"
"#;
    load_str(leo, "leo.toml", &[]).unwrap();
    std::env::set_var("SKYHOP_MEMORY_LIMIT", "200 kB");
    let e = load_str(leo, "leo.toml", &[]).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("leo.toml", "constellation"),
        "{e}"
    );
    assert!(e.message.contains("1584 satellites"), "{e}");
    // A bad limit is reported, not ignored.
    std::env::set_var("SKYHOP_MEMORY_LIMIT", "lots");
    let e = load_str(BASE, "t.toml", &[]).unwrap_err();
    assert!(e.message.contains("SKYHOP_MEMORY_LIMIT"), "{e}");
    std::env::remove_var("SKYHOP_MEMORY_LIMIT");
}
