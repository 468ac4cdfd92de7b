/// A deliberately independent reader for the PNG files the encoder writes: it checks the
/// structure and returns the pixels, using a bitwise CRC and a plain Adler-32.
enum PNGReader {
    struct Chunk {
        let type: String
        let data: [UInt8]
        let storedCRC: UInt32
    }

    struct Image {
        let width: Int
        let height: Int
        let bitDepth: UInt8
        let colourType: UInt8
        let chunks: [Chunk]
        /// The inflated image data: filter byte and packed pixels per row.
        let scanlines: [UInt8]
        /// The number of stored deflate blocks in the zlib stream.
        let deflateBlocks: Int

        /// Whether the pixel at (x, y) is black, for 1-bit greyscale images.
        func isBlack(x: Int, y: Int) -> Bool {
            let rowBytes = (width + 7) / 8
            let byte = scanlines[y * (rowBytes + 1) + 1 + x / 8]
            return byte & (0x80 >> UInt8(x % 8)) == 0
        }
    }

    enum Failure: Error, Equatable {
        case badSignature
        case truncated
        case badCRC(String)
        case badZlib(String)
        case unexpected(String)
    }

    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    static func bitwiseCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    static func plainAdler(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt64 = 1
        var b: UInt64 = 0
        for byte in bytes {
            a = (a + UInt64(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return UInt32(b << 16 | a)
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) throws -> UInt32 {
        guard offset + 4 <= bytes.count else { throw Failure.truncated }
        return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func read(_ file: [UInt8]) throws -> Image {
        guard file.starts(with: signature) else { throw Failure.badSignature }
        var chunks: [Chunk] = []
        var offset = signature.count
        while offset < file.count {
            let length = Int(try readUInt32(file, at: offset))
            guard offset + 12 + length <= file.count else { throw Failure.truncated }
            let typeBytes = Array(file[(offset + 4)..<(offset + 8)])
            let data = Array(file[(offset + 8)..<(offset + 8 + length)])
            let stored = try readUInt32(file, at: offset + 8 + length)
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard bitwiseCRC(typeBytes + data) == stored else { throw Failure.badCRC(type) }
            chunks.append(Chunk(type: type, data: data, storedCRC: stored))
            offset += 12 + length
        }
        guard let header = chunks.first, header.type == "IHDR", header.data.count == 13 else {
            throw Failure.unexpected("IHDR must come first")
        }
        guard chunks.last?.type == "IEND" else { throw Failure.unexpected("IEND must come last") }
        let zlib = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        let (scanlines, blocks) = try inflateStored(zlib)
        return Image(
            width: Int(try readUInt32(header.data, at: 0)),
            height: Int(try readUInt32(header.data, at: 4)),
            bitDepth: header.data[8],
            colourType: header.data[9],
            chunks: chunks,
            scanlines: scanlines,
            deflateBlocks: blocks
        )
    }

    /// Inflates a zlib stream that holds only stored deflate blocks.
    static func inflateStored(_ stream: [UInt8]) throws -> ([UInt8], Int) {
        guard stream.count >= 6 else { throw Failure.badZlib("short stream") }
        guard stream[0] & 0x0F == 8, (Int(stream[0]) * 256 + Int(stream[1])) % 31 == 0,
            stream[1] & 0x20 == 0
        else { throw Failure.badZlib("header") }
        var output: [UInt8] = []
        var offset = 2
        var blocks = 0
        var isFinal = false
        while !isFinal {
            guard offset + 5 <= stream.count else { throw Failure.badZlib("block header") }
            isFinal = stream[offset] & 1 == 1
            guard (stream[offset] >> 1) & 0b11 == 0 else { throw Failure.badZlib("not stored") }
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            guard length ^ complement == 0xFFFF else { throw Failure.badZlib("NLEN") }
            guard offset + 5 + length <= stream.count else { throw Failure.badZlib("block data") }
            output += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            blocks += 1
        }
        guard offset + 4 == stream.count else { throw Failure.badZlib("trailer length") }
        guard try readUInt32(stream, at: offset) == plainAdler(output) else {
            throw Failure.badZlib("Adler-32")
        }
        return (output, blocks)
    }
}
