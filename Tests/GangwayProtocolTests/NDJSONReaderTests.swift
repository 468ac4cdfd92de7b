import Crypto
import Foundation
import GangwayProtocol
import Testing

@Suite("NDJSON read as it streams: the same lines and digests however the bytes are cut")
struct NDJSONReaderTests {
    /// What a reader passed: each line's number and text, `nil` for one too long, and the
    /// digest after each line where the reader was stopped.
    struct Reading: Equatable {
        var lines: [(Int, String?)] = []
        var digests: [Int: String] = [:]
        var total = 0
        var finalDigest = ""

        static func == (left: Reading, right: Reading) -> Bool {
            left.lines.map(\.0) == right.lines.map(\.0) && left.lines.map(\.1) == right.lines.map(\.1)
                && left.digests == right.digests && left.total == right.total && left.finalDigest == right.finalDigest
        }
    }

    /// Reads `bytes` cut at `cuts`, stopping after each line in `stops` to note the digest.
    static func read(_ bytes: [UInt8], cuts: [Int] = [], stops: Set<Int> = [], limit: Int = 64) -> Reading {
        var reader = NDJSONReader(maximumLineLength: limit)
        var reading = Reading()
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < bytes.count }.sorted() + [bytes.count]) where end >= start {
            let chunk = Array(bytes[start..<end])
            start = end
            var offset = 0
            while offset < chunk.count {
                offset = chunk.withUnsafeBytes { buffer in
                    reader.read(buffer, from: offset) { number, line in
                        reading.lines.append((number, text(line)))
                        return !stops.contains(number)
                    }
                }
                if stops.contains(reader.lines), reading.digests[reader.lines] == nil {
                    reading.digests[reader.lines] = reader.digest
                }
            }
        }
        reader.finish { number, line in reading.lines.append((number, text(line))) }
        reading.total = reader.lines
        reading.finalDigest = reader.digest
        #expect(reader.bytesRead == bytes.count)
        return reading
    }

    static func text(_ line: NDJSONReader.Line) -> String? {
        guard case .text(let bytes) = line else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func digest(_ bytes: some Sequence<UInt8>) -> String {
        Data(SHA256.hash(data: Data(bytes))).base64URLEncoded
    }

    @Test("lines end at LF, a CR before it is dropped, a blank line counts, and the last needs no LF")
    func lineEnds() {
        let reading = Self.read(Array("one\r\ntwo\n\n  \nlast".utf8))
        #expect(reading.lines.map(\.0) == [1, 2, 3, 4, 5])
        #expect(reading.lines.map(\.1) == ["one", "two", "", "  ", "last"])
        // A trailing LF ends the last line; it does not start another.
        #expect(Self.read(Array("one\ntwo\n".utf8)).lines.map(\.1) == ["one", "two"])
        #expect(Self.read([]).lines.isEmpty)
        // A CR that is not before an LF is the line's own.
        #expect(Self.read(Array("a\rb\n".utf8)).lines.map(\.1) == ["a\rb"])
    }

    @Test("a line past the limit is passed as too long, whole, and is not kept as it comes")
    func tooLong() {
        let long = String(repeating: "x", count: 65)
        let exact = String(repeating: "y", count: 64)
        let text = "\(long)\n\(exact)\r\n\(exact)\n\(long)"
        for cuts in [[], [1], [30, 66, 70], Array(0...text.utf8.count)] {
            let reading = Self.read(Array(text.utf8), cuts: cuts)
            #expect(reading.lines.map(\.0) == [1, 2, 3, 4])
            #expect(reading.lines.map(\.1) == [nil, exact, exact, nil])
        }
    }

    @Test("the digest at a line is SHA-256 of the bytes through its LF, and the final one of all the bytes")
    func digests() {
        let text = Array("{\"id\":\"a\"}\r\n\n{\"id\":\"b\"}\nno end".utf8)
        let reading = Self.read(text, stops: [1, 2, 3])
        let ends = text.indices.filter { text[$0] == UInt8(ascii: "\n") }
        #expect(reading.digests[1] == Self.digest(text[...ends[0]]))
        #expect(reading.digests[2] == Self.digest(text[...ends[1]]))
        #expect(reading.digests[3] == Self.digest(text[...ends[2]]))
        #expect(reading.finalDigest == Self.digest(text))
        // Another byte before a line gives another digest at it.
        var changed = text
        changed[2] = UInt8(ascii: "j")
        #expect(Self.read(changed, stops: [3]).digests[3] != reading.digests[3])
    }

    @Test("1,000 random texts cut at random read the same as whole, stopped anywhere")
    func randomCuts() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "é", "✈️", "\r", "\n", "\r\n", " ", "{\"id\":\"x\"}", String(repeating: "z", count: 40)]
        for _ in 0..<1_000 {
            let text = Array(
                (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined().utf8
            )
            let cuts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Int.random(in: 0...max(text.count, 1), using: &generator)
            }
            let stops = Set((0..<3).map { _ in Int.random(in: 1...10, using: &generator) })
            let whole = Self.read(text, stops: stops)
            let cut = Self.read(text, cuts: cuts, stops: stops)
            #expect(cut == whole, "cuts \(cuts) of \(text.count) bytes, stops \(stops)")
            // Each stop's digest is that of the bytes through its line's LF.
            let ends = text.indices.filter { text[$0] == UInt8(ascii: "\n") }
            for (line, digest) in whole.digests {
                #expect(digest == Self.digest(text[...ends[line - 1]]))
            }
        }
    }
}
