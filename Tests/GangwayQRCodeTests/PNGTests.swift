import Foundation
import GangwaySystem
import Testing

@testable import GangwayQRCode

/// Structure and pixels of the PNG renderer's output.
@Suite("PNG rendering")
struct PNGTests {
    @Test("Signature, chunk order, CRCs and header fields")
    func structure() throws {
        let code = try QRCode(encoding: Fixtures.activationLink)
        let file = code.png(moduleSize: 8, quietZone: 4)
        #expect(Array(file.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let image = try PNGReader.read(file)
        #expect(image.chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(image.width == (code.size + 8) * 8)
        #expect(image.height == image.width)
        #expect(image.bitDepth == 1)
        #expect(image.colourType == 0)
        #expect(image.chunks[0].data.suffix(3) == [0, 0, 0])  // deflate, filter 0, no interlace
        #expect(image.chunks[2].data.isEmpty)
        #expect(image.chunks[2].storedCRC == 0xAE42_6082)  // the CRC every IEND carries
    }

    @Test(
        "Pixels match the modules, quiet zone included",
        arguments: [(1, 0), (3, 4), (8, 4), (5, 1)]
    )
    func pixels(moduleSize: Int, quietZone: Int) throws {
        let code = try QRCode(encoding: "Pixels for the crew", correction: .quartile)
        let image = try PNGReader.read(code.png(moduleSize: moduleSize, quietZone: quietZone))
        let extent = (code.size + 2 * quietZone) * moduleSize
        #expect(image.width == extent)
        let rowBytes = (extent + 7) / 8
        #expect(image.scanlines.count == extent * (rowBytes + 1))
        var mismatches = 0
        for y in 0..<extent {
            #expect(image.scanlines[y * (rowBytes + 1)] == 0, "filter type of row \(y)")
            for x in 0..<extent {
                let expected = code[x / moduleSize - quietZone, y / moduleSize - quietZone]
                if image.isBlack(x: x, y: y) != expected {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("Large images split into several stored blocks of at most 65535 bytes")
    func multipleBlocks() throws {
        let code = try QRCode(encoding: Fixtures.asciiText(length: 2000), correction: .low)
        let image = try PNGReader.read(code.png(moduleSize: 8))
        let rawLength = image.height * ((image.width + 7) / 8 + 1)
        #expect(image.scanlines.count == rawLength)
        #expect(image.deflateBlocks == (rawLength + 65_534) / 65_535)
        #expect(image.deflateBlocks > 1)
    }

    @Test("Out-of-range sizes are clamped to one pixel per module and no quiet zone")
    func clamping() throws {
        let code = try QRCode(encoding: "clamp")
        let image = try PNGReader.read(code.png(moduleSize: 0, quietZone: -3))
        #expect(image.width == code.size)
        #expect(image.isBlack(x: 0, y: 0))
    }

    @Test(
        "Python's zlib inflates the image data",
        .enabled(if: Tools.python3.executable != nil, "python3 not found on PATH")
    )
    func pythonZlib() async throws {
        let code = try QRCode(encoding: Fixtures.asciiText(length: 1500), correction: .medium)
        let file = code.png(moduleSize: 6)
        let image = try PNGReader.read(file)
        let folder = try TemporaryFolder()
        let pngPath = try folder.write(file, to: "code.png")
        let rawPath = folder.url.appendingPathComponent("raw").path
        let script = """
            import sys, struct, zlib
            data = open(sys.argv[1], 'rb').read()
            offset, idat = 8, b''
            while offset < len(data):
                (length,) = struct.unpack('>I', data[offset:offset + 4])
                kind = data[offset + 4:offset + 8]
                body = data[offset + 8:offset + 8 + length]
                assert zlib.crc32(kind + body) == struct.unpack('>I', data[offset + 8 + length:offset + 12 + length])[0]
                if kind == b'IDAT':
                    idat += body
                offset += 12 + length
            open(sys.argv[2], 'wb').write(zlib.decompress(idat))
            """
        let output = try #require(try await Tools.run(Tools.python3, ["-c", script, pngPath, rawPath]))
        #expect(output.status == 0)
        let inflated = Array(try Data(contentsOf: URL(fileURLWithPath: rawPath)))
        #expect(inflated == image.scanlines)
    }
}
