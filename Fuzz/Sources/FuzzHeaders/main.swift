import FuzzSupport
import GangwayForms
import HTTPTypes

@testable import GangwayServer
@testable import GangwaySystem

// Request headers the server reads itself: the page cookies (`BrowserCookie`), and the
// client address behind trusted proxies (`X-Forwarded-For`, `AddressRange`).
//
// Modes (first byte): 0 reads the rest's lines as `Cookie` fields; 1 reads the first
// line as `--trusted-proxy` ranges (comma-separated), the second as the peer and the
// rest as an `X-Forwarded-For` header.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 2) else { return 0 }
    switch mode {
    case 0: readCookies(rest)
    default: readForwardedFor(rest)
    }
    return 0
}

private func readCookies(_ bytes: ArraySlice<UInt8>) {
    var headers = HTTPFields()
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
        headers.append(HTTPField(name: .cookie, value: line.text))
    }
    for name in ["gangway_form", "__Host-gangway_form", "gangway_device", "__Host-gangway_device"] {
        guard let value = BrowserCookie.value(named: name, in: headers) else { continue }
        invariant(!value.contains(";"), "a cookie's value ends at the next ';'")
    }
}

private func readForwardedFor(_ bytes: ArraySlice<UInt8>) {
    let (rangesLine, rest) = FuzzInput.split(bytes)
    let (peerLine, forwarded) = FuzzInput.split(rest)
    var proxies: [AddressRange] = []
    for text in rangesLine.text.split(separator: ",") {
        guard let range = AddressRange(String(text)) else { continue }
        // What `--trusted-proxy` echoes back reads back as the same range.
        invariant(AddressRange(range.description) == range, "a range's description reads back as the range")
        proxies.append(range)
    }
    let peer = peerLine.text
    let address = proxies.clientAddress(peer: peer, forwardedFor: forwarded.isEmpty ? nil : forwarded.text)
    if let normalized = AddressRange.normalized(address) {
        invariant(normalized == address, "the client address is an address in its usual text")
        invariant(AddressRange(address)?.contains(address) == true, "an address lies in its own range")
    } else {
        // Only a peer that is no address comes back as it is.
        invariant(address == peer, "a client address that is no address is the peer's own text")
    }
}
