import Foundation

/// The JSON text of a flat map (an entity's fields, its field versions), as both
/// databases store it: keys sorted, written straight to UTF-8 and read with
/// `JSONSerialization`. Each change reads and writes these in its transaction, where
/// Codable's generic path was half of what applying a change cost.
enum FlatJSON {
    /// `map` as a JSON object, keys sorted.
    static func text(_ map: [String: String]) -> String {
        write(map) { value, bytes in string(value, into: &bytes) }
    }

    /// `map` as a JSON object, keys sorted.
    static func text(_ map: [String: Int64]) -> String {
        write(map) { value, bytes in bytes.append(contentsOf: String(value).utf8) }
    }

    /// The map `text` holds; `nil` when it is not a JSON object of strings.
    static func strings(_ text: String) -> [String: String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String]
    }

    /// The map `text` holds; `nil` when it is not a JSON object of integers.
    static func integers(_ text: String) -> [String: Int64]? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return nil
        }
        var map: [String: Int64] = [:]
        map.reserveCapacity(object.count)
        for (key, value) in object {
            guard let number = value as? Int64 else { return nil }
            map[key] = number
        }
        return map
    }

    private static func write<Value>(
        _ map: [String: Value],
        _ value: (Value, inout [UInt8]) -> Void
    ) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(16 * (map.count + 1))
        for (index, key) in map.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let item = map[key] { value(item, &bytes) }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as a JSON string: quote and backslash escaped, control characters as
    /// `\u00XX`, everything else as its UTF-8.
    private static func string(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0f)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
