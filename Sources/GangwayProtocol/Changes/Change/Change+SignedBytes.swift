import Foundation

extension Change {
    /// The bytes an author signs: every part of the change, each length-prefixed, in a
    /// fixed order, fields sorted by name, under a label that names the format. Two
    /// different changes never have the same bytes, and a signature made for another
    /// purpose never verifies as a change's.
    public var signedBytes: Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + fields.reduce(0) { $0 + 16 + $1.key.utf8.count + $1.value.utf8.count })
        func append(_ text: String) {
            append(Int64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        func append(_ number: Int64) {
            withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(Self.signatureLabel)
        append(id.lowercasedText)
        append(registrationID)
        append(author)
        append(sequence)
        append(entitySet)
        append(entityID)
        if let baseVersion {
            bytes.append(1)
            append(baseVersion)
        } else {
            bytes.append(0)
        }
        append(Int64(madeAt.timeIntervalSince1970.rounded(.down)))
        append(Int64(fields.count))
        for name in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            append(name)
            append(fields[name]!)
        }
        return Data(bytes)
    }

    /// The label that starts ``signedBytes``; a new format gets a new label.
    static let signatureLabel = "gangway.change.v1"
}

extension Change {
    /// The change whose ``signedBytes`` these are; `nil` when they are not exactly the
    /// signed bytes of a change (a wrong label, a length past the end, text that is not
    /// UTF-8, a time outside the years 0000 to 9999, bytes left over, or anything that
    /// would not be written back the same).
    public init?(signedBytes bytes: Data) {
        var reader = SignedBytesReader(bytes: [UInt8](bytes))
        guard reader.text() == Self.signatureLabel,
            let idText = reader.text(), let id = UUID(uuidString: idText),
            let registrationID = reader.text(), let author = reader.text(),
            let sequence = reader.number(),
            let entitySet = reader.text(), let entityID = reader.text(),
            let hasBase = reader.byte(), hasBase <= 1
        else { return nil }
        var baseVersion: Int64?
        if hasBase == 1 {
            guard let base = reader.number() else { return nil }
            baseVersion = base
        }
        guard let madeAt = reader.number(), LenientDateTranscoder.writableRange.contains(TimeInterval(madeAt)),
            let count = reader.number(),
            (0...Int64(reader.remaining / 16)).contains(count)
        else { return nil }
        var fields: [String: String] = [:]
        for _ in 0..<count {
            guard let name = reader.text(), let value = reader.text() else { return nil }
            fields[name] = value
        }
        let change = Change(
            id: id,
            registrationID: registrationID,
            author: author,
            sequence: sequence,
            entitySet: entitySet,
            entityID: entityID,
            baseVersion: baseVersion,
            fields: fields,
            madeAt: Date(timeIntervalSince1970: TimeInterval(madeAt))
        )
        // One form only: what reads back must write back the same bytes.
        guard reader.remaining == 0, change.signedBytes == bytes else { return nil }
        self = change
    }
}

/// Reads ``Change/signedBytes``: big-endian 64-bit numbers, and text as its UTF-8 length
/// then its bytes; every read past the end is `nil`.
private struct SignedBytesReader {
    let bytes: [UInt8]
    var offset = 0

    var remaining: Int { bytes.count - offset }

    mutating func byte() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func number() -> Int64? {
        guard remaining >= 8 else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + 8)] { value = value << 8 | UInt64(byte) }
        offset += 8
        return Int64(bitPattern: value)
    }

    mutating func text() -> String? {
        guard let length = number(), length >= 0, length <= remaining else { return nil }
        let utf8 = bytes[offset..<(offset + Int(length))]
        offset += Int(length)
        return String(validating: utf8, as: UTF8.self)
    }
}
