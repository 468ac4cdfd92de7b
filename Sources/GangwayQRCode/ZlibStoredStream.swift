/// A zlib stream (RFC 1950) whose deflate data (RFC 1951) is stored, not compressed.
enum ZlibStoredStream {
    /// The largest payload of one stored deflate block.
    static let maximumBlockLength = 65_535

    /// `data` wrapped in a zlib header, stored deflate blocks and the Adler-32 trailer.
    static func wrap(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01 makes CMF * 256 + FLG a multiple of 31.
        var stream: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + maximumBlockLength, data.count)
            let length = UInt16(end - start)
            // BFINAL in bit 0, BTYPE 00 (stored); the rest of the byte pads to a byte boundary.
            stream.append(end == data.count ? 1 : 0)
            stream += [UInt8(length & 0xFF), UInt8(length >> 8)]
            stream += [UInt8(~length & 0xFF), UInt8(~length >> 8)]
            stream += data[start..<end]
            start = end
        } while start < data.count

        var checksum = Adler32()
        checksum.update(data)
        stream += PNGWriter.bigEndian(checksum.value)
        return stream
    }
}
