/// JSON written straight to UTF-8 bytes, for the documents written by the thousand (an
/// entity's fields, a sync page of entities), where Codable's generic path costs more
/// than the rest of the work. What it writes is RFC 8259 JSON, as `JSONDecoder` reads it.
package enum JSONBytes {
    /// `text` as a JSON string: quote and backslash escaped, control characters as
    /// `\u00XX`, everything else as its UTF-8. A text with nothing to escape (nearly
    /// every one) is copied whole.
    package static func string(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            guard utf8.contains(where: needsEscape) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(byte)
                case 0..<0x20:
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    ])
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0f)])
                default:
                    bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `value` as a JSON number.
    package static func integer(_ value: Int64, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `value` as a JSON literal.
    package static func bool(_ value: Bool, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: value ? trueBytes : falseBytes)
    }

    /// `key` as an object's member name, with its colon.
    package static func key(_ key: StaticString, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A member after the first of an object: a comma, then `key` and its colon.
    package static func member(_ key: StaticString, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        self.key(key, into: &bytes)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
}
