import Foundation

/// The JSON text of a flat map (an entity's fields, its field versions), as both
/// databases store it and a device's local store keeps it: keys sorted, written straight to UTF-8, and read by a scan of that
/// plain form, with `JSONDecoder` for any other (what earlier versions wrote, a string
/// with an escape). Each change reads and writes these in its transaction, where
/// Codable's generic path was half of what applying a change cost.
package enum FlatJSON {
    /// `map` as a JSON object, keys sorted.
    package static func text(_ map: [String: String]) -> String {
        write(map) { value, bytes in JSONBytes.string(value, into: &bytes) }
    }

    /// `map` as a JSON object, keys sorted.
    package static func text(_ map: [String: Int64]) -> String {
        write(map) { value, bytes in JSONBytes.integer(value, into: &bytes) }
    }

    /// The map `text` holds; `nil` when it is not a JSON object of strings.
    package static func strings(_ text: String) -> [String: String]? {
        if let map = scan(
            text,
            value: { bytes -> String? in
                // A string with no escape in it; anything else is left to the full parser.
                guard bytes.first == UInt8(ascii: "\""), bytes.count >= 2, bytes.last == UInt8(ascii: "\"") else {
                    return nil
                }
                return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
            }
        ) {
            return map
        }
        return try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }

    /// The map `text` holds; `nil` when it is not a JSON object of integers.
    package static func integers(_ text: String) -> [String: Int64]? {
        if let map = scan(
            text,
            value: { bytes -> Int64? in
                guard
                    bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: "-") })
                else { return nil }
                return Int64(String(decoding: bytes, as: UTF8.self))
            }
        ) {
            return map
        }
        return try? JSONDecoder().decode([String: Int64].self, from: Data(text.utf8))
    }

    /// The map of the plain form this type writes: `{`, then `"key":value` pairs split
    /// by commas, then `}`, no white space, no escape in a key or a string, no key twice.
    /// `nil` for anything else (which `JSONDecoder` then reads, or refuses): this is a
    /// shortcut for what the server wrote, never the judge of what is JSON.
    private static func scan<Value>(_ text: String, value: (ArraySlice<UInt8>) -> Value?) -> [String: Value]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        var map: [String: Value] = [:]
        var position = 1
        let end = bytes.count - 1
        guard position < end else { return map }
        while true {
            // The key: a quoted text with no escape.
            guard bytes[position] == UInt8(ascii: "\"") else { return nil }
            var close = position + 1
            while close < end, bytes[close] != UInt8(ascii: "\""), bytes[close] != UInt8(ascii: "\\"),
                bytes[close] >= 0x20
            {
                close += 1
            }
            guard close < end, bytes[close] == UInt8(ascii: "\""), close + 1 < end,
                bytes[close + 1] == UInt8(ascii: ":")
            else { return nil }
            let key = String(decoding: bytes[(position + 1)..<close], as: UTF8.self)
            // A string value runs to its closing quote (it has no escape); any other value
            // to the next comma or the end.
            var valueEnd = close + 2
            if valueEnd < end, bytes[valueEnd] == UInt8(ascii: "\"") {
                valueEnd += 1
                while valueEnd < end, bytes[valueEnd] != UInt8(ascii: "\""), bytes[valueEnd] != UInt8(ascii: "\\"),
                    bytes[valueEnd] >= 0x20
                {
                    valueEnd += 1
                }
                guard valueEnd < end, bytes[valueEnd] == UInt8(ascii: "\"") else { return nil }
                valueEnd += 1
            } else {
                while valueEnd < end, bytes[valueEnd] != UInt8(ascii: ",") { valueEnd += 1 }
            }
            guard let item = value(bytes[(close + 2)..<valueEnd]), map.updateValue(item, forKey: key) == nil else {
                return nil
            }
            if valueEnd == end { return map }
            guard bytes[valueEnd] == UInt8(ascii: ","), valueEnd + 1 < end else { return nil }
            position = valueEnd + 1
        }
    }

    /// `map` as a JSON object, keys sorted, at the end of `bytes`.
    package static func write(_ map: [String: String], into bytes: inout [UInt8]) {
        write(map, into: &bytes) { value, bytes in JSONBytes.string(value, into: &bytes) }
    }

    private static func write<Value>(
        _ map: [String: Value],
        _ value: (Value, inout [UInt8]) -> Void
    ) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 * (map.count + 1))
        write(map, into: &bytes, value)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write<Value>(
        _ map: [String: Value],
        into bytes: inout [UInt8],
        _ value: (Value, inout [UInt8]) -> Void
    ) {
        bytes.append(UInt8(ascii: "{"))
        // The pairs sorted, not the keys: no lookup of each key again.
        for (index, (key, item)) in map.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.string(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            value(item, &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
