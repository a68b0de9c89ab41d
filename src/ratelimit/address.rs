//! Which address a request comes from: the peer, or, when the peer is a trusted
//! proxy, the right-most address of X-Forwarded-For that is not one.

use std::net::{IpAddr, Ipv6Addr};

use crate::network::{Network, canonical};

/// The client address of a request. `forwarded` are the X-Forwarded-For header
/// values in the order received; they count only when the peer is trusted, and
/// then the right-most entry not in a trusted network is the client (everything
/// left of it was written by the client itself and proves nothing).
pub fn client_address<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[Network],
) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|n| n.contains(ip));
    let mut client = canonical(peer);
    if !is_trusted(client) {
        return client;
    }
    let hops: Vec<&str> = forwarded.flat_map(|v| v.split(',')).collect();
    for hop in hops.iter().rev() {
        // An entry that is not an address ends what can be believed: the last
        // trusted hop stands.
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            break;
        };
        client = canonical(ip);
        if !is_trusted(client) {
            break;
        }
    }
    client
}

/// The key a client is counted under: an IPv6 client by its /64, the block one
/// host is usually given, so that it cannot take a fresh bucket per address.
pub fn bucket_address(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address")
    }

    fn nets(list: &[&str]) -> Vec<Network> {
        list.iter().map(|n| n.parse().expect("network")).collect()
    }

    #[test]
    fn networks_parse_and_contain_their_addresses() {
        let n: Network = "10.1.0.0/16".parse().expect("network");
        assert!(n.contains(ip("10.1.200.3")) && !n.contains(ip("10.2.0.1")));
        assert!(n.contains(ip("::ffff:10.1.0.9")));
        let one: Network = "127.0.0.1".parse().expect("network");
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let v6: Network = "fd00::/8".parse().expect("network");
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        let all: Network = "0.0.0.0/0".parse().expect("network");
        assert!(all.contains(ip("8.8.8.8")));
        for bad in ["10.0.0.0/33", "nonsense", "10.0.0.0/x", "::/129"] {
            assert!(bad.parse::<Network>().is_err(), "{bad}");
        }
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_peer() {
        let trusted = nets(&["10.0.0.0/8"]);
        let xff = ["203.0.113.9"];
        assert_eq!(
            client_address(ip("198.51.100.1"), xff.into_iter(), &trusted),
            ip("198.51.100.1")
        );
        assert_eq!(
            client_address(ip("10.0.0.2"), xff.into_iter(), &trusted),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_address(ip("10.0.0.2"), xff.into_iter(), &[]),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn the_right_most_untrusted_hop_is_the_client() {
        let trusted = nets(&["10.0.0.0/8"]);
        // The client claimed 1.1.1.1; its real address was appended by our proxies.
        let xff = ["1.1.1.1, 203.0.113.9", "10.0.0.7"];
        assert_eq!(
            client_address(ip("10.0.0.2"), xff.into_iter(), &trusted),
            ip("203.0.113.9")
        );
        // Garbage stops the walk at the last trusted hop.
        let xff = ["203.0.113.9, bogus, 10.0.0.7"];
        assert_eq!(
            client_address(ip("10.0.0.2"), xff.into_iter(), &trusted),
            ip("10.0.0.7")
        );
        // No header at all: the proxy itself.
        assert_eq!(
            client_address(ip("10.0.0.2"), std::iter::empty(), &trusted),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_slash_64() {
        assert_eq!(
            bucket_address(ip("2001:db8:1:2:aaaa::1")),
            bucket_address(ip("2001:db8:1:2:bbbb::9"))
        );
        assert_ne!(
            bucket_address(ip("2001:db8:1:2::1")),
            bucket_address(ip("2001:db8:1:3::1"))
        );
        assert_eq!(bucket_address(ip("192.0.2.1")), ip("192.0.2.1"));
    }
}
