import Foundation
import GangwayProtocol
public import NIOCore

/// A form body or a query (`application/x-www-form-urlencoded`), read as a browser writes
/// one and written as a server that is read by others must: the server's pages read their
/// forms with it, and its requests to an identity provider and its redirects write them.
public enum FormBody {
    /// The fields of a form body (`application/x-www-form-urlencoded`), read as the WHATWG
    /// URL standard reads one: pairs split at `&`, the name from the value at the first
    /// `=`, `+` a space and `%XX` a byte, the bytes then UTF-8; the first value of a name
    /// counts. Any text is a body: a stray `%`, or a character a browser would have
    /// encoded, is taken as it is.
    ///
    /// Where the standard reads bytes that are not UTF-8 as U+FFFD, the field is left out
    /// here: two passwords that differ only in such bytes would otherwise be one. A body
    /// that is not UTF-8 text itself has no fields.
    public static func fields(_ body: ByteBuffer) -> [String: String] {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else { return [:] }
        return fields(text)
    }

    /// The fields of a form body given as text (see ``fields(_:)-(ByteBuffer)``).
    public static func fields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.utf8.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = decoded(pair[..<(equals ?? pair.endIndex)]),
                let value = equals.map({ decoded(pair[pair.index(after: $0)...]) }) ?? ""
            else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One name or value of a form body, decoded; `nil` when its bytes are not UTF-8.
    private static func decoded(_ encoded: Substring.UTF8View) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            index = encoded.index(after: index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let digits = encoded[index...].prefix(2)
                if digits.count == 2, let high = hexValue(digits.first!), let low = hexValue(digits.last!) {
                    bytes.append(high << 4 | low)
                    index = digits.endIndex
                } else {
                    bytes.append(byte)
                }
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` as one name or value of a form or query (`application/x-www-form-urlencoded`,
    /// with every character but the unreserved ones percent-encoded).
    public static func encoded(_ text: String) -> String {
        PercentEncoding.encoded(text)
    }

    /// `fields` as a form body or query.
    public static func text(_ fields: [(String, String)]) -> String {
        fields.map { "\(encoded($0.0))=\(encoded($0.1))" }.joined(separator: "&")
    }

}
