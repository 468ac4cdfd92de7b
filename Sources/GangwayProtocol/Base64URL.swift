import Foundation

extension Data {
    /// Base64url without padding (RFC 4648 §5), as activation links carry payloads and
    /// signatures.
    public var base64URLEncoded: String {
        var bytes = [UInt8](base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads base64url text, with or without padding; `nil` when it is not base64url.
    public init?(base64URLEncoded text: String) {
        var bytes = Array(text.utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "-"): bytes[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): bytes[index] = UInt8(ascii: "/")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            default: return nil
            }
        }
        bytes += Array(repeating: UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        self.init(base64Encoded: Data(bytes))
    }
}
