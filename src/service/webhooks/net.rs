//! Where a webhook may point, and the one request of a delivery attempt.
//!
//! Unless private addresses are allowed, a URL must be `https` and every address
//! its host resolves to must be public. The check is made at each attempt, after
//! DNS, and the connection goes to an address that passed it: no second lookup
//! that a rebinding DNS server could answer differently. Redirects are not
//! followed and no proxy is used.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use url::{Host, Url};

use crate::service::error::Result;

/// Why a URL is refused, or an attempt failed before any answer.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

/// Whether an address is reachable on the public Internet: not loopback,
/// private, link-local, shared (CGNAT), multicast, unspecified, reserved or a
/// documentation range, nor an IPv6 form of one of those.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], bits: u32) -> bool {
    let mask = if bits == 0 {
        0
    } else {
        u32::MAX << (32 - bits)
    };
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(net)) & mask)
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    const NOT_PUBLIC: &[([u8; 4], u32)] = &[
        ([0, 0, 0, 0], 8),       // "this network", unspecified
        ([10, 0, 0, 0], 8),      // private
        ([100, 64, 0, 0], 10),   // shared address space (CGNAT)
        ([127, 0, 0, 0], 8),     // loopback
        ([169, 254, 0, 0], 16),  // link-local (cloud metadata lives here)
        ([172, 16, 0, 0], 12),   // private
        ([192, 0, 0, 0], 24),    // IETF protocol assignments
        ([192, 0, 2, 0], 24),    // documentation
        ([192, 88, 99, 0], 24),  // 6to4 relay anycast
        ([192, 168, 0, 0], 16),  // private
        ([198, 18, 0, 0], 15),   // benchmarking
        ([198, 51, 100, 0], 24), // documentation
        ([203, 0, 113, 0], 24),  // documentation
        ([224, 0, 0, 0], 4),     // multicast
        ([240, 0, 0, 0], 4),     // reserved, and broadcast
    ];
    !NOT_PUBLIC.iter().any(|(net, bits)| in_v4(ip, *net, *bits))
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], bits: u32) -> bool {
    let mask = if bits == 0 {
        0
    } else {
        u128::MAX << (128 - bits)
    };
    (u128::from(ip) & mask) == (u128::from(Ipv6Addr::from(net)) & mask)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // IPv4 carried in IPv6 is judged as the IPv4 address it names.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    if in_v6(ip, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96) {
        let [.., a, b, c, d] = ip.octets();
        return is_public_v4(Ipv4Addr::new(a, b, c, d));
    }
    // Only global unicast (2000::/3) is public; within it, these are not.
    const NOT_PUBLIC: &[([u16; 8], u32)] = &[
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), // IETF protocol assignments, Teredo
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), // documentation
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), // 6to4 (carries any IPv4)
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), // documentation
    ];
    in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3)
        && !NOT_PUBLIC.iter().any(|(net, bits)| in_v6(ip, *net, *bits))
}

/// Checks a webhook URL as given: its form always, and, unless private targets
/// are allowed, that it is `https` and does not name an obviously private host
/// (an address literal that is not public, `localhost`). Names are not resolved
/// here: the check at every delivery is the one that counts.
pub fn check_url(text: &str, allow_private: bool) -> Result<Url, String> {
    if text.len() > 2048 {
        return Err("A webhook URL has at most 2048 characters.".into());
    }
    let url = Url::parse(text).map_err(|e| format!("The webhook URL is not a URL: {e}."))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        _ => return Err("A webhook URL must be https.".into()),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "A webhook URL may not carry credentials; verify the signature instead.".into(),
        );
    }
    if url.fragment().is_some() {
        return Err("A webhook URL may not have a fragment.".into());
    }
    let host = url
        .host()
        .ok_or_else(|| "A webhook URL needs a host.".to_owned())?;
    if !allow_private {
        let private = match &host {
            Host::Ipv4(ip) => !is_public_v4(*ip),
            Host::Ipv6(ip) => !is_public_v6(*ip),
            Host::Domain(name) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                name == "localhost" || name.ends_with(".localhost")
            }
        };
        if private {
            return Err(
                "A webhook URL must point to a public address, not a private, loopback or reserved one."
                    .into(),
            );
        }
    }
    Ok(url)
}

/// The addresses to connect to for `url`, every one of them checked.
async fn resolve(url: &Url, allow_private: bool) -> Result<Vec<SocketAddr>, TargetError> {
    let port = url
        .port_or_known_default()
        .ok_or_else(|| TargetError::Refused("the URL has no port".into()))?;
    let addrs: Vec<SocketAddr> = match url.host() {
        Some(Host::Ipv4(ip)) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
        Some(Host::Ipv6(ip)) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
        Some(Host::Domain(name)) => tokio::net::lookup_host((name, port))
            .await
            .map_err(|e| TargetError::Failed(format!("DNS lookup of {name} failed: {e}")))?
            .collect(),
        None => return Err(TargetError::Refused("the URL has no host".into())),
    };
    if addrs.is_empty() {
        return Err(TargetError::Failed("the host has no address".into()));
    }
    if !allow_private {
        // Every address must be public: a name with one private address among
        // public ones is refused whole, whichever the connection would pick.
        if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
            return Err(TargetError::Refused(format!(
                "{} is not a public address",
                bad.ip()
            )));
        }
    }
    Ok(addrs)
}

fn tls() -> &'static Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth())
            .unwrap_or_else(|_| {
                // ring supports the default versions; this cannot happen.
                rustls::ClientConfig::builder_with_protocol_versions(&[&rustls::version::TLS13])
                    .with_root_certificates(rustls::RootCertStore::empty())
                    .with_no_client_auth()
            });
        Arc::new(config)
    })
}

/// What the receiver answered.
pub struct Answer {
    pub status: u16,
}

/// One POST of `body` to `url` with `headers`, within `timeout`: resolve, check,
/// connect to a checked address, TLS for https, HTTP/1.1.
pub async fn post(
    url: &Url,
    headers: &[(&str, String)],
    body: Bytes,
    allow_private: bool,
    timeout: Duration,
) -> Result<Answer, TargetError> {
    match tokio::time::timeout(timeout, post_now(url, headers, body, allow_private)).await {
        Ok(r) => r,
        Err(_) => Err(TargetError::Failed(format!(
            "no answer within {} ms",
            timeout.as_millis()
        ))),
    }
}

trait Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static> Io for T {}

async fn post_now(
    url: &Url,
    headers: &[(&str, String)],
    body: Bytes,
    allow_private: bool,
) -> Result<Answer, TargetError> {
    let host = url
        .host_str()
        .ok_or_else(|| TargetError::Refused("the URL has no host".into()))?
        .to_owned();
    let addrs = resolve(url, allow_private).await?;
    let mut stream = None;
    let mut last = String::new();
    for addr in &addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = format!("connecting to {addr} failed: {e}"),
        }
    }
    let stream = stream.ok_or(TargetError::Failed(last))?;
    let _ = stream.set_nodelay(true);
    let io: Box<dyn Io> = if url.scheme() == "https" {
        let name = match url.host() {
            Some(Host::Ipv4(ip)) => rustls::pki_types::ServerName::IpAddress(IpAddr::V4(ip).into()),
            Some(Host::Ipv6(ip)) => rustls::pki_types::ServerName::IpAddress(IpAddr::V6(ip).into()),
            _ => rustls::pki_types::ServerName::try_from(host.clone())
                .map_err(|e| TargetError::Refused(format!("bad host name: {e}")))?,
        };
        let tls = tokio_rustls::TlsConnector::from(tls().clone())
            .connect(name, stream)
            .await
            .map_err(|e| TargetError::Failed(format!("TLS handshake failed: {e}")))?;
        Box::new(tls)
    } else {
        Box::new(stream)
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| TargetError::Failed(format!("HTTP handshake failed: {e}")))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    };
    let mut req = hyper::Request::post(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(
            hyper::header::USER_AGENT,
            concat!("sealed-orders/", env!("CARGO_PKG_VERSION")),
        )
        .header(hyper::header::CONNECTION, "close");
    for (name, value) in headers {
        req = req.header(*name, value.as_str());
    }
    let req = req
        .body(Full::new(body))
        .map_err(|e| TargetError::Failed(format!("bad request: {e}")))?;
    let res = sender
        .send_request(req)
        .await
        .map_err(|e| TargetError::Failed(format!("the request failed: {e}")))?;
    let status = res.status().as_u16();
    // The answer's body says nothing we use; read a little of it so the
    // connection ends cleanly, and no more.
    let mut body = res.into_body();
    let mut read = 0usize;
    while read < 64 * 1024 {
        match body.frame().await {
            Some(Ok(f)) => read += f.data_ref().map_or(0, |d| d.len()),
            _ => break,
        }
    }
    Ok(Answer { status })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_reserved_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "::",
            "::1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "2001::1",
            "::127.0.0.1",
        ] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(!is_public(ip), "{ip} should not be public");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(is_public(ip), "{ip} should be public");
        }
    }

    #[tokio::test]
    async fn an_attempt_to_a_private_address_is_refused_after_dns() {
        // Something listens, so only the check can stop the request.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        for url in [
            format!("http://127.0.0.1:{port}/hook"),
            format!("https://localhost:{port}/hook"),
            format!("https://[::ffff:127.0.0.1]:{port}/hook"),
        ] {
            let url = Url::parse(&url).expect("a URL");
            let r = post(&url, &[], Bytes::new(), false, Duration::from_secs(5)).await;
            match r {
                Err(TargetError::Refused(why)) => {
                    assert!(why.contains("not a public address"), "{url}: {why}")
                }
                Err(TargetError::Failed(why)) => panic!("{url} was tried: {why}"),
                Ok(_) => panic!("{url} was posted to"),
            }
        }
    }

    #[test]
    fn urls_must_be_https_and_not_obviously_private() {
        for bad in [
            "http://example.com/hook",
            "https://127.0.0.1/hook",
            "https://[::1]/hook",
            "https://localhost/hook",
            "https://a.localhost./hook",
            "https://10.0.0.8:8443/hook",
            "https://user:pw@example.com/hook",
            "https://example.com/hook#x",
            "ftp://example.com/",
            "not a url",
            "https://0x7f.1/",
        ] {
            assert!(check_url(bad, false).is_err(), "{bad}");
        }
        assert!(check_url("https://example.com/hook?a=1", false).is_ok());
        assert!(check_url("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(check_url("ftp://127.0.0.1/", true).is_err());
    }
}
