//! TLS on both listeners (rustls, its aws-lc-rs provider): the certificate
//! chain and private key read from PEM files, and the handshake of each
//! accepted connection. With it the telnet port speaks TLS from the first
//! byte, and the web port serves `https` and `wss`.
//!
//! Not here: client certificates (tokens say who a client is), nor TLS
//! for the `cog://` client.

use std::path::Path;
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::Shared;

/// A server's TLS settings from PEM files: `cert`, its certificate chain
/// (the server's first), and `key`, its private key (PKCS#8, PKCS#1 or
/// SEC1). The errors name the file and what was wrong.
pub fn tls_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let named = |p: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert).and_then(|i| i.collect::<Result<_, _>>()).map_err(|e| named(cert, &e))?;
    if certs.is_empty() {
        return Err(named(cert, &"no certificate in it (PEM: -----BEGIN CERTIFICATE-----)"));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| named(key, &e))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("the TLS certificate and key do not go together: {e}"))?;
    Ok(Arc::new(config))
}

/// The TLS handshake of an accepted connection, within the handshake
/// timeout (one that takes longer counts as timed out); `None` if it
/// failed or took too long: the client gets nothing, as it did not speak
/// TLS, or not in time.
pub(crate) async fn accept(shared: &Shared, config: Arc<ServerConfig>, sock: TcpStream) -> Option<TlsStream<TcpStream>> {
    match tokio::time::timeout(shared.config.handshake_timeout, TlsAcceptor::from(config).accept(sock)).await {
        Ok(Ok(tls)) => Some(tls),
        Ok(Err(_)) => None,
        Err(_) => {
            shared.stats.timed_out.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            None
        }
    }
}
