/// Protocol Buffers' binary encoding, written straight into one byte array: the few wire
/// types OTLP's trace messages use (varints, 64- and 32-bit fixed values, and
/// length-delimited bytes, strings and messages).
///
/// A nested message is written in place after a one-byte length, which is widened once
/// the message is known to need more: no message is built apart and copied in.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    private enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    private mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// An unsigned or enum field; nothing for zero, its default.
    mutating func uint(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// An `int64` field: a negative value takes ten bytes, as the encoding says. Zero is
    /// written only when `present` (a member of a `oneof`, whose case it tells).
    mutating func int(_ field: Int, _ value: Int64, present: Bool = false) {
        guard value != 0 || present else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: value))
    }

    mutating func bool(_ field: Int, _ value: Bool, present: Bool = false) {
        guard value || present else { return }
        tag(field, .varint)
        bytes.append(value ? 1 : 0)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ field: Int, _ value: Double, present: Bool = false) {
        guard value.bitPattern != 0 || present else { return }
        tag(field, .fixed64)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string field; nothing for the empty string unless `present`.
    mutating func string(_ field: Int, _ value: String, present: Bool = false) {
        guard !value.isEmpty || present else { return }
        var value = value
        value.withUTF8 { data(field, $0, present: present) }
    }

    /// A bytes field; nothing when empty unless `present`.
    mutating func data(_ field: Int, _ value: some Collection<UInt8>, present: Bool = false) {
        guard !value.isEmpty || present else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A message field, written by `body`; an empty message is still written (a present
    /// message differs from an absent one).
    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        let start = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - start - 1
        guard length >= 0x80 else {
            bytes[start] = UInt8(length)
            return
        }
        var prefix = ProtobufWriter()
        prefix.varint(UInt64(length))
        bytes.replaceSubrange(start..<start + 1, with: prefix.bytes)
    }
}
