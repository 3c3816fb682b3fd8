//! TLS 1.3 for the QUIC handshake, real and reproducible: rustls with
//! *ring*, as quinn configures it by default, with three sources of
//! nondeterminism replaced.
//!
//! - Randomness: the `CryptoProvider`'s `secure_random` (client and server
//!   randoms, session-ticket nonces and identities) is a [`SeededSource`]
//!   per side, and so is the X25519 key share: *ring*'s own X25519 (the
//!   scalar multiplication, the clamping) with the private scalar drawn
//!   from that source instead of the system's generator. The provider's
//!   other key-exchange groups (P-256, P-384) are offered as quinn offers
//!   them but never started: both ends share X25519, their first choice.
//! - Certificate: a fixed self-signed Ed25519 pair (`cert/`), generated
//!   once with OpenSSL 3 and committed (`openssl genpkey -algorithm ed25519
//!   -outform DER -out key.der; openssl req -x509 -new -key key.der -keyform
//!   DER -subj /CN=server.skyhop -addext subjectAltName=DNS:server.skyhop
//!   -days 36500 -set_serial 1 -outform DER -out cert.der`). Ed25519
//!   signatures are deterministic (RFC 8032), so the CertificateVerify is
//!   too. The client pins that certificate: it accepts exactly those bytes
//!   and verifies the server's handshake signature with them (real
//!   verification, no chain or validity dates to check).
//! - Time: rustls's clock is the fixed date of `seeded.rs`.
//!
//! Everything else is quinn's default: TLS 1.3 only, every *ring* cipher
//! suite (AES-256-GCM, AES-128-GCM, ChaCha20-Poly1305, in that order; the
//! Initial packets use AES-128-GCM, RFC 9001 §5), early data enabled at the
//! client and accepted at the server, two session tickets sent.

use super::seeded::{system_time, SeededSource};
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{ActiveKeyExchange, CryptoProvider, SharedSecret, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, NamedGroup, SignatureScheme};
use std::sync::Arc;

/// The server's certificate (DER) and its Ed25519 key (PKCS #8 DER).
pub const CERT: &[u8] = include_bytes!("cert/cert.der");
const KEY: &[u8] = include_bytes!("cert/key.der");

/// The name the client asks for (the certificate's subject).
pub(super) const SERVER_NAME: &str = "server.skyhop";

impl rustls::crypto::SecureRandom for SeededSource {
    fn fill(&self, buf: &mut [u8]) -> Result<(), rustls::crypto::GetRandomFailed> {
        SeededSource::fill(self, buf);
        Ok(())
    }
}

/// X25519 with the private scalar from the side's seeded source.
impl SupportedKxGroup for SeededSource {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let mut scalar = [0u8; 32];
        self.fill(&mut scalar);
        // *ring* generates its X25519 keys from a `SecureRandom`, a sealed
        // trait; its fixed-bytes implementation (for known-answer tests)
        // hands it our scalar.
        #[allow(deprecated)]
        let rng = ring::test::rand::FixedSliceRandom { bytes: &scalar };
        let key = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::X25519, &rng)
            .map_err(|_| rustls::Error::FailedToGetRandomBytes)?;
        let public = key
            .compute_public_key()
            .map_err(|_| rustls::Error::FailedToGetRandomBytes)?;
        Ok(Box::new(X25519Share {
            key,
            public: public.as_ref().to_vec(),
        }))
    }
    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

struct X25519Share {
    key: ring::agreement::EphemeralPrivateKey,
    public: Vec<u8>,
}

impl ActiveKeyExchange for X25519Share {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, rustls::Error> {
        // RFC 8446 §4.2.8.2: an X25519 share is 32 bytes.
        if peer.len() != 32 {
            return Err(rustls::PeerMisbehaved::InvalidKeyShare.into());
        }
        let peer = ring::agreement::UnparsedPublicKey::new(&ring::agreement::X25519, peer);
        ring::agreement::agree_ephemeral(self.key, &peer, |s| SharedSecret::from(s))
            .map_err(|_| rustls::PeerMisbehaved::InvalidKeyShare.into())
    }
    fn pub_key(&self) -> &[u8] {
        &self.public
    }
    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

/// rustls's clock: the fixed date.
#[derive(Debug)]
struct FixedTime;

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        let d = system_time()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970");
        Some(UnixTime::since_unix_epoch(d))
    }
}

/// *ring*'s provider with the side's seeded randomness and X25519.
fn provider(src: &'static SeededSource) -> Arc<CryptoProvider> {
    let ring = rustls::crypto::ring::default_provider();
    let mut kx: Vec<&'static dyn SupportedKxGroup> = vec![src];
    kx.extend(ring.kx_groups.iter().skip(1).copied());
    debug_assert_eq!(ring.kx_groups[0].name(), NamedGroup::X25519);
    Arc::new(CryptoProvider {
        kx_groups: kx,
        secure_random: src,
        ..ring
    })
}

/// The client's verifier: exactly the committed certificate, and the
/// server's TLS 1.3 signature checked with it.
#[derive(Debug)]
struct Pinned(Arc<CryptoProvider>);

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == CERT && intermediates.is_empty() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::CertificateError::UnknownIssuer.into())
        }
    }
    fn verify_tls12_signature(
        &self,
        _msg: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // QUIC is TLS 1.3 only (RFC 9001 §4.2).
        Err(rustls::PeerIncompatible::Tls13RequiredForQuic.into())
    }
    fn verify_tls13_signature(
        &self,
        msg: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            msg,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The client's TLS configuration, drawing from `src`.
pub(super) fn client_config(src: &'static SeededSource) -> QuicClientConfig {
    let p = provider(src);
    let mut c = rustls::ClientConfig::builder_with_details(p.clone(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned(p)))
        .with_no_client_auth();
    // As quinn's default client configuration.
    c.enable_early_data = true;
    QuicClientConfig::try_from(Arc::new(c)).expect("ring has AES-128-GCM")
}

/// The server's TLS configuration, drawing from `src`.
pub(super) fn server_config(src: &'static SeededSource) -> QuicServerConfig {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec()));
    let mut c = rustls::ServerConfig::builder_with_details(provider(src), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(CERT.to_vec())], key)
        .expect("the committed Ed25519 pair loads");
    // As quinn's default server configuration (0-RTT accepted).
    c.max_early_data_size = u32::MAX;
    QuicServerConfig::try_from(Arc::new(c)).expect("ring has AES-128-GCM")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::crypto::SecureRandom;

    #[test]
    fn a_seeded_x25519_share_is_reproducible_and_agrees_with_its_peer() {
        let a = SeededSource::take(1);
        let b = SeededSource::take(2);
        let ka = SupportedKxGroup::start(a).unwrap();
        let kb = SupportedKxGroup::start(b).unwrap();
        let (pa, pb) = (ka.pub_key().to_vec(), kb.pub_key().to_vec());
        assert_eq!(pa.len(), 32);
        assert_ne!(pa, pb);
        let sa = ka.complete(&pb).unwrap();
        let sb = kb.complete(&pa).unwrap();
        assert_eq!(sa.secret_bytes(), sb.secret_bytes());
        // The same seed gives the same share again.
        let a2 = SeededSource::take(1);
        assert_eq!(SupportedKxGroup::start(a2).unwrap().pub_key(), &pa[..]);
        let mut r = [0u8; 4];
        SecureRandom::fill(a2, &mut r).unwrap();
        for s in [a, b, a2] {
            SeededSource::give_back(s);
        }
    }

    #[test]
    fn the_pinned_verifier_accepts_only_the_committed_certificate() {
        let v = Pinned(Arc::new(rustls::crypto::ring::default_provider()));
        let name = ServerName::try_from(SERVER_NAME).unwrap();
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(1));
        let ok = CertificateDer::from(CERT.to_vec());
        assert!(v.verify_server_cert(&ok, &[], &name, &[], now).is_ok());
        let mut bad = CERT.to_vec();
        bad[100] ^= 1;
        let bad = CertificateDer::from(bad);
        assert!(v.verify_server_cert(&bad, &[], &name, &[], now).is_err());
        assert!(v
            .verify_server_cert(&ok, std::slice::from_ref(&ok), &name, &[], now)
            .is_err());
    }
}
