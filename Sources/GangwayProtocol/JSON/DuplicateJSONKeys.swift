/// Finds a key an object of a JSON text names twice (`{"blocked": true, "blocked": false}`).
///
/// RFC 8259 §4 leaves such an object's meaning to each parser: Foundation's decoder keeps
/// the first value, most others (Python's, JavaScript's, many gateways') the last, so a
/// proxy or an audit that reads the body would see another request than the one the
/// server carries out. The server refuses such a body instead (400).
///
/// Keys are compared as the text they stand for (`"a"` and `"\u0061"` are the same key).
/// A text that is not JSON is passed over here: the decoder says what is wrong with it.
public enum DuplicateJSONKeys {
    /// The first key named twice in one object of the JSON text `bytes`, if any.
    public static func first(in bytes: UnsafeRawBufferPointer) -> String? {
        var scanner = Scanner(bytes: bytes)
        return scanner.firstDuplicate()
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        /// The keys seen in each object open at this point, innermost last; `nil` for an array.
        var open: [Set<String>?] = []
        /// Whether the next string of the innermost object is a key.
        var expectingKey = false

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func firstDuplicate() -> String? {
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "{"):
                    open.append([])
                    expectingKey = true
                case UInt8(ascii: "["):
                    open.append(nil)
                    expectingKey = false
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard !open.isEmpty else { return nil }
                    open.removeLast()
                    expectingKey = false
                case UInt8(ascii: ","):
                    expectingKey = open.last.map { $0 != nil } ?? false
                case UInt8(ascii: "\""):
                    let isKey = expectingKey
                    expectingKey = false
                    guard let text = string(decoding: isKey) else { return nil }
                    // A key is read only in an object, so the innermost open one is a set.
                    if isKey, let text, let last = open.indices.last,
                        open[last]?.insert(text).inserted == false
                    {
                        return text
                    }
                default:
                    continue
                }
            }
            return nil
        }

        /// Reads a string whose opening quote was read: its text when `decoding`, `.some(nil)`
        /// when skipped, `nil` when the text ends before the string does.
        private mutating func string(decoding: Bool) -> String?? {
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            var pendingHigh: UInt32?
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard decoding else { return .some(nil) }
                    flush(&raw, into: &scalars)
                    return .some(String(scalars))
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    guard decoding else {
                        if escaped == UInt8(ascii: "u") { index += 4 }
                        continue
                    }
                    flush(&raw, into: &scalars)
                    switch escaped {
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let unit = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { return nil }
                        index += 4
                        if (0xD800...0xDBFF).contains(unit) {
                            pendingHigh = unit
                            continue
                        }
                        var value = unit
                        if let high = pendingHigh, (0xDC00...0xDFFF).contains(unit) {
                            value = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
                        }
                        pendingHigh = nil
                        scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                    default: scalars.append(Unicode.Scalar(escaped))
                    }
                default:
                    if decoding { raw.append(byte) }
                }
            }
            return nil
        }

        private func flush(_ raw: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            guard !raw.isEmpty else { return }
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
    }
}
