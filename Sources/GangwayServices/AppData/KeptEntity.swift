import Foundation
import GangwayClient

/// How the device keeps one entity of an app's data set: a record of the secure store
/// (its key is the entity's ID), in a compact binary form rather than JSON, because a
/// first sync writes a hundred thousand of them and a launch reads them all back.
///
/// The form, all integers big-endian: a format byte (1); the version (8 bytes); the time
/// of the last change, as the bits of its seconds since 1970 (8 bytes); who changed it; the
/// number of fields (4 bytes); then each field's name and value. A text is its UTF-8
/// length (4 bytes) and bytes. Records are sealed and authenticated by the store, so a
/// record that does not read back is a fault of this code, said as ``Unreadable``.
enum KeptEntity {
    static let format: UInt8 = 1

    static func encode(_ entity: AppEntity) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32 + entity.updatedBy.utf8.count + entity.fields.count * 24)
        bytes.append(format)
        append(UInt64(bitPattern: entity.version), to: &bytes)
        append(entity.updatedAt.timeIntervalSince1970.bitPattern, to: &bytes)
        append(entity.updatedBy, to: &bytes)
        append(UInt32(entity.fields.count), to: &bytes)
        for (name, value) in entity.fields {
            append(name, to: &bytes)
            append(value, to: &bytes)
        }
        return Data(bytes)
    }

    static func decode(id: String, from data: Data) throws -> AppEntity {
        try data.withUnsafeBytes { buffer in
            var reader = Reader(bytes: buffer)
            guard try reader.byte() == format else { throw Unreadable() }
            let version = Int64(bitPattern: try reader.integer(UInt64.self))
            let time = Double(bitPattern: try reader.integer(UInt64.self))
            let updatedBy = try reader.text()
            let count = Int(try reader.integer(UInt32.self))
            // Each field takes at least its two lengths: a count beyond that is damage.
            guard count <= reader.remaining / 8 else { throw Unreadable() }
            var fields: [String: String] = [:]
            fields.reserveCapacity(count)
            for _ in 0..<count {
                let name = try reader.text()
                fields[name] = try reader.text()
            }
            guard reader.remaining == 0 else { throw Unreadable() }
            return AppEntity(
                id: id,
                fields: fields,
                version: version,
                updatedAt: Date(timeIntervalSince1970: time),
                updatedBy: updatedBy
            )
        }
    }

    /// A kept entity that does not read back as one.
    struct Unreadable: Error {}

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            append(UInt32(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func byte() throws(Unreadable) -> UInt8 {
            guard remaining >= 1 else { throw Unreadable() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws(Unreadable) -> Integer {
            let size = MemoryLayout<Integer>.size
            guard remaining >= size else { throw Unreadable() }
            defer { offset += size }
            return Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
        }

        mutating func text() throws(Unreadable) -> String {
            let length = Int(try integer(UInt32.self))
            guard remaining >= length else { throw Unreadable() }
            defer { offset += length }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw Unreadable()
            }
            return text
        }
    }
}
