//! One QUIC transfer between two live hosts of `skyhop live`, with quinn's
//! own client and server (quinn 0.11.12 over quinn-proto 0.11.19, the
//! version skyhop simulates), timed on the machine's monotonic clock (the
//! same clock in every network namespace).
//!
//!     quic-transfer server ADDR OUT.json [--bulk SECONDS] [SETTINGS]
//!     quic-transfer client ADDR OUT.json (--bytes N | --bulk) [SETTINGS]
//!
//! As in skyhop's model of a QUIC flow, the client is the sender: it
//! connects to the server at ADDR (ip:port), opens one unidirectional
//! stream and writes N bytes (or writes until the server closes), the
//! byte at stream offset o being o mod 251; the server reads the stream,
//! checks every byte, and closes the connection when the stream ends (or
//! SECONDS after it accepted the connection). The client writes
//! {"t_connect", "t_connected", "handshake_s"}: when it started to
//! connect, when quinn reported the connection established (the server's
//! Finished processed). The server writes {"bytes", "intact", "t_accept",
//! "t_eof", "stats"}: the bytes read (all equal to what was sent:
//! "intact"), when the connection was accepted and the stream ended, and
//! quinn's statistics of its connection. A file's completion time is
//! t_eof − t_connect (handshake included), as skyhop's `completion_time_s`
//! counts from the flow's start.
//!
//! SETTINGS, on both ends (defaults: quinn's own, as skyhop's `QuicConfig`):
//! `--cc newreno|cubic|bbr` (cubic), `--stream-window B` (1 250 000),
//! `--conn-window B` (unlimited), `--send-window B` (10 000 000),
//! `--no-mtud` (MTU discovery off). Segmentation offload is off, as in
//! skyhop (each datagram its own packet).
//!
//! The server presents skyhop's own certificate (`crates/skyhop/src/quic/
//! cert/`, a self-signed Ed25519 pair); the client accepts exactly that
//! certificate and verifies the handshake signature with it.

use quinn::congestion::{BbrConfig, CubicConfig, NewRenoConfig};
use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig, VarInt};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

const CERT: &[u8] = include_bytes!("../../../crates/skyhop/src/quic/cert/cert.der");
const KEY: &[u8] = include_bytes!("../../../crates/skyhop/src/quic/cert/key.der");
const SERVER_NAME: &str = "server.skyhop";
const PERIOD: usize = 251;
const PIECE: usize = 1 << 16;

/// CLOCK_MONOTONIC in seconds (Python's `time.monotonic()`).
fn monotonic() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Args {
    mode: String,
    addr: SocketAddr,
    out: String,
    bytes: Option<u64>,
    bulk: Option<f64>,
    cc: String,
    stream_window: u64,
    conn_window: Option<u64>,
    send_window: u64,
    mtud: bool,
}

fn args() -> Args {
    let v: Vec<String> = std::env::args().collect();
    let usage = "usage: quic-transfer server|client ADDR OUT.json [--bytes N] [--bulk [S]] \
                 [--cc C] [--stream-window B] [--conn-window B] [--send-window B] [--no-mtud]";
    if v.len() < 4 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let mut a = Args {
        mode: v[1].clone(),
        addr: v[2].parse().expect("ADDR as ip:port"),
        out: v[3].clone(),
        bytes: None,
        bulk: None,
        cc: "cubic".into(),
        stream_window: 1_250_000,
        conn_window: None,
        send_window: 10_000_000,
        mtud: true,
    };
    let mut i = 4;
    let num = |i: usize| -> u64 { v.get(i).and_then(|s| s.parse().ok()).expect(usage) };
    while i < v.len() {
        match v[i].as_str() {
            "--bytes" => {
                a.bytes = Some(num(i + 1));
                i += 1;
            }
            "--bulk" => match v.get(i + 1).and_then(|s| s.parse().ok()) {
                Some(s) => {
                    a.bulk = Some(s);
                    i += 1;
                }
                None => a.bulk = Some(f64::INFINITY),
            },
            "--cc" => {
                a.cc = v[i + 1].clone();
                i += 1;
            }
            "--stream-window" => {
                a.stream_window = num(i + 1);
                i += 1;
            }
            "--conn-window" => {
                a.conn_window = Some(num(i + 1));
                i += 1;
            }
            "--send-window" => {
                a.send_window = num(i + 1);
                i += 1;
            }
            "--no-mtud" => a.mtud = false,
            x => panic!("unknown argument {x}; {usage}"),
        }
        i += 1;
    }
    a
}

fn transport(a: &Args) -> Arc<TransportConfig> {
    let mut t = TransportConfig::default();
    t.stream_receive_window(VarInt::from_u64(a.stream_window).unwrap())
        .send_window(a.send_window)
        .enable_segmentation_offload(false);
    if let Some(w) = a.conn_window {
        t.receive_window(VarInt::from_u64(w).unwrap());
    }
    if !a.mtud {
        t.mtu_discovery_config(None);
    }
    match a.cc.as_str() {
        "newreno" => t.congestion_controller_factory(Arc::new(NewRenoConfig::default())),
        "cubic" => t.congestion_controller_factory(Arc::new(CubicConfig::default())),
        "bbr" => t.congestion_controller_factory(Arc::new(BbrConfig::default())),
        c => panic!("unknown controller {c}"),
    };
    Arc::new(t)
}

/// Accepts exactly skyhop's certificate, and the server's handshake
/// signature made with its key.
#[derive(Debug)]
struct Pinned(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == CERT {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General("not skyhop's certificate".into()))
        }
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("TLS 1.3 only".into()))
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

fn write_json(path: &str, v: serde_json::Value) {
    std::fs::write(path, v.to_string()).expect("writing the result");
}

async fn server(a: Args) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec()));
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(CERT.to_vec())], key)
        .unwrap();
    let mut tls = tls;
    tls.max_early_data_size = u32::MAX;
    let mut sc = ServerConfig::with_crypto(Arc::new(QuicServerConfig::try_from(tls).unwrap()));
    sc.transport_config(transport(&a));
    let ep = Endpoint::server(sc, a.addr).expect("binding the server");
    let conn = ep
        .accept()
        .await
        .expect("a connection")
        .await
        .expect("its handshake");
    let t_accept = monotonic();
    let mut rs = conn.accept_uni().await.expect("a stream");
    let (mut n, mut intact) = (0u64, true);
    let deadline = a.bulk.map(|s| tokio::time::Instant::now() + Duration::from_secs_f64(s));
    loop {
        let chunk = match deadline {
            Some(d) => match tokio::time::timeout_at(d, rs.read_chunk(usize::MAX, true)).await {
                Ok(c) => c,
                Err(_) => break,
            },
            None => rs.read_chunk(usize::MAX, true).await,
        };
        match chunk {
            Ok(Some(c)) => {
                intact &= c.offset == n;
                for (k, b) in c.bytes.iter().enumerate() {
                    intact &= *b as u64 == (n + k as u64) % PERIOD as u64;
                }
                n += c.bytes.len() as u64;
            }
            Ok(None) => break,
            Err(e) => {
                eprintln!("server: {e}");
                intact = false;
                break;
            }
        }
    }
    let t_eof = monotonic();
    let s = conn.stats();
    write_json(
        &a.out,
        serde_json::json!({
            "bytes": n,
            "intact": intact,
            "t_accept": t_accept,
            "t_eof": t_eof,
            "stats": {
                "rtt_s": s.path.rtt.as_secs_f64(),
                "cwnd_bytes": s.path.cwnd,
                "congestion_events": s.path.congestion_events,
                "lost_packets": s.path.lost_packets,
                "datagrams_received": s.udp_rx.datagrams,
                "datagrams_sent": s.udp_tx.datagrams,
                "mtu": s.path.current_mtu,
            },
        }),
    );
    conn.close(VarInt::from_u32(0), b"done");
    ep.wait_idle().await;
}

async fn client(a: Args) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned(provider)))
        .with_no_client_auth();
    tls.enable_early_data = true;
    let mut cc = ClientConfig::new(Arc::new(QuicClientConfig::try_from(tls).unwrap()));
    cc.transport_config(transport(&a));
    let mut ep = Endpoint::client("0.0.0.0:0".parse().unwrap()).expect("a client socket");
    ep.set_default_client_config(cc);
    // The server may not be listening yet: retry until it answers.
    let (conn, t_connect, t_connected) = loop {
        let t0 = monotonic();
        match ep.connect(a.addr, SERVER_NAME).unwrap().await {
            Ok(c) => break (c, t0, monotonic()),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    write_json(
        &a.out,
        serde_json::json!({
            "t_connect": t_connect,
            "t_connected": t_connected,
            "handshake_s": t_connected - t_connect,
        }),
    );
    let pattern: Vec<u8> = (0..PERIOD + PIECE).map(|i| (i % PERIOD) as u8).collect();
    let pattern = bytes::Bytes::from(pattern);
    let mut ws = conn.open_uni().await.expect("a stream");
    let mut sent = 0u64;
    let total = if a.bulk.is_some() { u64::MAX } else { a.bytes.expect("--bytes or --bulk") };
    while sent < total {
        let n = (total - sent).min(PIECE as u64) as usize;
        let off = (sent % PERIOD as u64) as usize;
        if ws.write_chunk(pattern.slice(off..off + n)).await.is_err() {
            break;
        }
        sent += n as u64;
    }
    let _ = ws.finish();
    // Until the server has read it all and closed.
    conn.closed().await;
    ep.wait_idle().await;
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    match a.mode.as_str() {
        "server" => rt.block_on(server(a)),
        "client" => rt.block_on(client(a)),
        m => panic!("unknown mode {m}"),
    }
}
