/// Reads JSON text a value at a time, for the documents read by the thousand (a sync
/// page of entities), where `JSONDecoder`'s generic path is most of what reading one
/// costs.
///
/// It takes RFC 8259 JSON as `JSONDecoder` reads it, and throws ``NotRead`` at anything
/// else, or anything it leaves to the full decoder (a number with a fraction or an
/// exponent, a lone surrogate, nesting past ``depthLimit``): a shortcut, never the judge
/// of what is JSON. A caller that catches ``NotRead`` decodes the same bytes with
/// `JSONDecoder`, so every document reads as it always did, only faster when plain.
///
/// ```swift
/// try bytes.withUnsafeBytes { buffer throws(JSONScanner.NotRead) in
///     var scanner = JSONScanner(buffer)
///     try scanner.object { scanner, key throws(JSONScanner.NotRead) in
///         if key == "name" { name = try scanner.string() } else { try scanner.skipValue() }
///     }
///     try scanner.end()
/// }
/// ```
package struct JSONScanner {
    /// Where the scanner stopped: the text is not JSON, or not JSON it reads.
    package struct NotRead: Error {
        package init() {}
    }

    /// The deepest nesting ``skipValue()`` goes into (`JSONDecoder` takes 512).
    package static let depthLimit = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    /// A scanner at the start of `bytes`, which must outlive it.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: Structure

    /// Reads an object, calling `member` with each key as often as the text has it;
    /// `member` reads the value.
    package mutating func object(
        _ member: (inout JSONScanner, String) throws(NotRead) -> Void
    ) throws(NotRead) {
        try expect(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads an array, calling `element` for each of its values; `element` reads it.
    package mutating func array(_ element: (inout JSONScanner) throws(NotRead) -> Void) throws(NotRead) {
        try expect(UInt8(ascii: "["))
        if take(UInt8(ascii: "]")) { return }
        repeat {
            try element(&self)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// Reads the end of the text: nothing but white space is left.
    package mutating func end() throws(NotRead) {
        skipSpace()
        guard index == bytes.count else { throw NotRead() }
    }

    /// Reads `null`, if it comes next.
    package mutating func null() -> Bool {
        skipSpace()
        return literal("null")
    }

    // MARK: Values

    /// Reads a string, its escapes decoded; its UTF-8 must be valid.
    package mutating func string() throws(NotRead) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // The plain run: no escape, no control character.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try Self.text(run, ascii: ascii)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            ascii = ascii && byte < 0x80
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = decoded.withUnsafeBytes({ try? Self.text($0, ascii: false) }) else { throw NotRead() }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &decoded)
            case 0..<0x20:
                throw NotRead()
            default:
                decoded.append(byte)
            }
        }
        throw NotRead()
    }

    /// The text of valid UTF-8 `bytes` (ASCII when `ascii`, which needs no check).
    private static func text(_ bytes: UnsafeRawBufferPointer, ascii: Bool) throws(NotRead) -> String {
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        if ascii { return String(decoding: utf8, as: UTF8.self) }
        guard let text = String(validating: utf8, as: UTF8.self) else { throw NotRead() }
        return text
    }

    /// Reads an integer written with digits alone (an optional minus, no leading zero,
    /// no fraction, no exponent) that fits 64 bits.
    package mutating func integer() throws(NotRead) -> Int64 {
        skipSpace()
        let negative = take(byte: UInt8(ascii: "-"))
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(digit))
            guard !overflowTimes, !overflowSum else { throw NotRead() }
            magnitude = sum
            index += 1
        }
        let count = index - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { throw NotRead() }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            throw NotRead()
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw NotRead() }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw NotRead() }
        return Int64(magnitude)
    }

    /// Reads a number in any form RFC 8259 allows (a fraction, an exponent), as its text
    /// is written: for a value kept as text, where reading it as a `Double` would change
    /// its digits.
    package mutating func numberText() throws(NotRead) -> String {
        skipSpace()
        let start = index
        _ = take(byte: UInt8(ascii: "-"))
        let integer = index
        // No leading zero: "0" alone, or a digit from 1 first.
        guard try digits() == 1 || bytes[integer] != UInt8(ascii: "0") else { throw NotRead() }
        if take(byte: UInt8(ascii: ".")) { _ = try digits() }
        if take(byte: UInt8(ascii: "e")) || take(byte: UInt8(ascii: "E")) {
            if !take(byte: UInt8(ascii: "+")) { _ = take(byte: UInt8(ascii: "-")) }
            _ = try digits()
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Reads one digit or more; how many.
    private mutating func digits() throws(NotRead) -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        guard index > start else { throw NotRead() }
        return index - start
    }

    /// The kinds of value JSON has.
    package enum ValueKind: Sendable {
        case string, number, object, array, bool, null
    }

    /// What the next value is, by its first byte; `nil` when no value starts there.
    package mutating func nextKind() -> ValueKind? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return nil
        }
    }

    /// Reads `true` or `false`.
    package mutating func bool() throws(NotRead) -> Bool {
        skipSpace()
        if literal("true") { return true }
        if literal("false") { return false }
        throw NotRead()
    }

    /// Reads any value, and drops it.
    package mutating func skipValue() throws(NotRead) {
        try skipValue(depth: 0)
    }

    private mutating func skipValue(depth: Int) throws(NotRead) {
        guard depth < Self.depthLimit else { throw NotRead() }
        skipSpace()
        guard index < bytes.count else { throw NotRead() }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"):
            try object { scanner, _ throws(NotRead) in try scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try array { scanner throws(NotRead) in try scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try bool()
        case UInt8(ascii: "n"):
            guard null() else { throw NotRead() }
        default:
            _ = try integer()
        }
    }

    // MARK: Bytes

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    /// Reads `byte` after white space, if it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        return take(byte: byte)
    }

    private mutating func take(byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(NotRead) {
        guard take(byte) else { throw NotRead() }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = word.withUTF8Buffer { word in
            (0..<count).allSatisfy { bytes[index + $0] == word[$0] }
        }
        if matches { index += count }
        return matches
    }

    /// Decodes the escape after a backslash (RFC 8259, 7), a surrogate pair into one
    /// scalar.
    private mutating func escape(into decoded: inout [UInt8]) throws(NotRead) {
        guard index < bytes.count else { throw NotRead() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0c)
        case UInt8(ascii: "n"): decoded.append(0x0a)
        case UInt8(ascii: "r"): decoded.append(0x0d)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var value = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(value) {
                guard take(byte: UInt8(ascii: "\\")), take(byte: UInt8(ascii: "u")) else { throw NotRead() }
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw NotRead() }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else { throw NotRead() }
            decoded.append(contentsOf: scalar.utf8)
        default:
            throw NotRead()
        }
    }

    private mutating func hex4() throws(NotRead) -> UInt16 {
        guard bytes.count - index >= 4 else { throw NotRead() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw NotRead()
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
