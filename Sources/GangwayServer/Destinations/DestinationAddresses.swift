import Foundation
import GangwayProtocol
import GangwaySystem

/// Where a destination's URL leads, for a server that sends to public addresses only
/// (``ServerConfiguration/publicDestinationsOnly``): its host's addresses, each of which
/// must be public.
enum DestinationAddresses {
    /// Why `url` may not be a destination of a server that sends to public addresses only,
    /// in a sentence; `nil` when every address its host resolves to is public.
    ///
    /// An HTTP client resolves the host again when it connects, so a name whose answer
    /// changes in between (DNS rebinding) is checked only as well as the resolver's cache
    /// holds: the check at each request narrows that window, and a firewall rule on the
    /// server's host closes it (see the DocC's threat model).
    static func refusal(_ url: String) async -> String? {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
            return "url has no host to check."
        }
        let shown = TextRules.escapingControls(String(host.prefix(255)))
        let addresses = await HostAddresses.resolve(host)
        guard !addresses.isEmpty else {
            return "url's host \(shown) does not resolve, so it cannot be checked to be public; "
                + "this server sends to public addresses only."
        }
        guard let inner = addresses.first(where: { !AddressRange.isPublic($0) }) else { return nil }
        return "url's host \(shown) reaches \(inner), which is not a public address (it is private, loopback, "
            + "link-local or reserved); this server sends to public addresses only."
    }
}
