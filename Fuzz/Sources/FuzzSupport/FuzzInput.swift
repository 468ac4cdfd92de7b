/// One input of a harness, read piece by piece.
///
/// The first byte of a harness that tests several parsers chooses one (``mode(of:)``):
/// an ASCII digit names a mode, so the seed files stay readable (`0grant_type=…`).
public struct FuzzInput: Sendable {
    /// The input's bytes.
    public let bytes: [UInt8]

    /// The input libFuzzer hands `LLVMFuzzerTestOneInput`.
    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = Array(UnsafeBufferPointer(start: start, count: start == nil ? 0 : count))
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The mode the first byte names, `0..<count` (`'0'` is mode 0), and the bytes after
    /// it; `nil` for an empty input.
    public func mode(of count: Int) -> (mode: Int, rest: ArraySlice<UInt8>)? {
        guard let first = bytes.first else { return nil }
        return (Int(first &- UInt8(ascii: "0")) % count, bytes.dropFirst())
    }

    /// The bytes as text, invalid UTF-8 repaired as every server-side reader repairs it.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `bytes` split at the first `separator`: the part before it and the part after (an
    /// empty second part when there is none).
    public static func split(
        _ bytes: ArraySlice<UInt8>,
        at separator: UInt8 = UInt8(ascii: "\n")
    ) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard let index = bytes.firstIndex(of: separator) else { return (bytes, []) }
        return (bytes[..<index], bytes[(index + 1)...])
    }
}

extension ArraySlice<UInt8> {
    /// The bytes as text, invalid UTF-8 repaired.
    public var text: String { String(decoding: self, as: UTF8.self) }
}

extension Collection<UInt8> {
    /// The bytes with every `placeholder` (such as `$REGISTRATION`) replaced by `value`,
    /// leaving every other byte as it is (valid UTF-8 or not).
    public func replacingPlaceholder(_ placeholder: String, with value: String) -> [UInt8] {
        let pattern = Array(placeholder.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var index = startIndex
        while index != endIndex {
            if self[index...].starts(with: pattern) {
                result += value.utf8
                index = self.index(index, offsetBy: pattern.count)
            } else {
                result.append(self[index])
                index = self.index(after: index)
            }
        }
        return result
    }
}
