import Crypto
import Foundation

/// Cuts a stream of bytes into lines as it comes, a chunk at a time, with the digest of
/// the bytes read so far: the reader of an NDJSON body (an ingest batch) or file (an
/// import), which is never held whole.
///
/// A line ends at LF; a CR before it is not part of the line. The last line may have no
/// LF: ``finish(_:)`` ends it. No line is kept longer than the reader's limit: a longer
/// one is passed as ``Line/tooLong`` once it ends, and its bytes are not kept meanwhile.
/// Lines are numbered from 1, blank ones too, so a number is the one an editor shows.
///
/// The digest (``digest``) is SHA-256 of the bytes through the last line passed, its LF
/// included: the same lines give the same digest at the same line, and any other byte
/// before it gives another.
package struct NDJSONReader {
    /// A line, as passed to the caller.
    package enum Line {
        /// The line's bytes, without its LF or CR; valid only during the call.
        case text(UnsafeRawBufferPointer)
        /// The line is longer than the reader's limit.
        case tooLong
    }

    /// The longest line the reader passes whole, in bytes.
    package let maximumLineLength: Int
    /// The lines passed so far.
    package private(set) var lines = 0
    /// The bytes read so far.
    package private(set) var bytesRead = 0
    private var hasher = SHA256()
    /// The start of a line whose end has not come yet; empty while it is ``tooLong``.
    private var carry: [UInt8] = []
    /// The line being read has passed the limit: the rest of it is dropped.
    private var carryTooLong = false

    package init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// The digest of every byte through the last line passed, in base64url.
    package var digest: String {
        Data(hasher.finalize()).base64URLEncoded
    }

    /// Reads `chunk` from `offset`, calling `line` with the number and the bytes of each
    /// line it ends, until `line` answers `false`: returns where it stopped, to be read
    /// from again (``digest`` is then the one through that line), or `chunk.count`.
    package mutating func read(
        _ chunk: UnsafeRawBufferPointer,
        from offset: Int = 0,
        _ line: (_ number: Int, _ line: Line) throws -> Bool
    ) rethrows -> Int {
        var start = offset
        while start < chunk.count {
            guard let end = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                keep(UnsafeRawBufferPointer(rebasing: chunk[start...]))
                bytesRead += chunk.count - start
                return chunk.count
            }
            let segment = UnsafeRawBufferPointer(rebasing: chunk[start..<end])
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: chunk[start...end]))
            bytesRead += end + 1 - start
            start = end + 1
            lines += 1
            let goesOn: Bool
            if carryTooLong {
                carryTooLong = false
                goesOn = try line(lines, .tooLong)
            } else if carry.isEmpty {
                goesOn = try line(lines, passed(Self.trimmed(segment)))
            } else if carry.count + segment.count > maximumLineLength + 1 {
                carry.removeAll(keepingCapacity: true)
                goesOn = try line(lines, .tooLong)
            } else {
                carry.append(contentsOf: segment)
                defer { carry.removeAll(keepingCapacity: true) }
                goesOn = try carry.withUnsafeBytes { try line(lines, passed(Self.trimmed($0))) }
            }
            if !goesOn { return start }
        }
        return chunk.count
    }

    /// Ends the stream: a last line with no LF is passed; an empty one is not a line.
    package mutating func finish(_ line: (_ number: Int, _ line: Line) throws -> Void) rethrows {
        guard carryTooLong || !carry.isEmpty else { return }
        lines += 1
        let tooLong = carryTooLong
        carryTooLong = false
        defer { carry.removeAll() }
        if tooLong {
            try line(lines, .tooLong)
        } else {
            try carry.withUnsafeBytes { try line(lines, passed(Self.trimmed($0))) }
        }
    }

    /// A line within the limit as text, a longer one as ``Line/tooLong``.
    private func passed(_ line: UnsafeRawBufferPointer) -> Line {
        line.count > maximumLineLength ? .tooLong : .text(line)
    }

    /// Keeps the start of a line that goes on in the next chunk, hashing it now: a line
    /// past the limit keeps nothing.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
        guard !carryTooLong else { return }
        // One byte more than the limit may be a CR that is not part of the line.
        if carry.count + bytes.count > maximumLineLength + 1 {
            carryTooLong = true
            carry.removeAll()
        } else {
            carry.append(contentsOf: bytes)
        }
    }

    /// The line without a CR at its end.
    private static func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard line.last == UInt8(ascii: "\r") else { return line }
        return UnsafeRawBufferPointer(rebasing: line.dropLast())
    }
}
