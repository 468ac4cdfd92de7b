import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input, read on a queue of its own so a person thinking does not hold one
/// of the few threads the app's tasks (and the embedded server's) run on.
final class InputReader: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var offset = 0
        var atEnd = false
    }

    private let descriptor: Int32
    private let queue = DispatchQueue(label: "gangway.input")
    private let state = Mutex(State())

    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
    }

    /// The next byte, or `nil` at the end of input.
    func readByte() async -> UInt8? {
        while true {
            let next: UInt8?? = state.withLock { state in
                if state.offset < state.buffer.count {
                    defer { state.offset += 1 }
                    return .some(state.buffer[state.offset])
                }
                return state.atEnd ? .some(nil) : nil
            }
            if let next { return next }
            await fill()
        }
    }

    /// A line of input that is not UTF-8 text: read, and not taken (a byte replaced
    /// would make two different passwords one).
    struct NotText: Error {}

    /// The next line without its line ending, or `nil` at the end of input.
    /// - Throws: ``NotText`` for a line that is not UTF-8 text, which is then read past.
    func readLine() async throws(NotText) -> String? {
        var bytes: [UInt8] = []
        while let byte = await readByte() {
            if byte == UInt8(ascii: "\n") { return try Self.text(bytes) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : try Self.text(bytes)
    }

    /// Everything not read yet, up to the end of input.
    func readToEnd() async -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let (chunk, atEnd) = state.withLock { state in
                defer {
                    state.buffer.removeAll()
                    state.offset = 0
                }
                return (Array(state.buffer[state.offset...]), state.atEnd)
            }
            bytes += chunk
            if atEnd { return bytes }
            await fill()
        }
    }

    private static func text(_ bytes: [UInt8]) throws(NotText) -> String {
        guard
            let text = String(
                validating: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...],
                as: UTF8.self
            )
        else { throw NotText() }
        return text
    }

    /// Blocks on the input queue until some bytes (or the end) arrive.
    private func fill() async {
        let descriptor = descriptor
        let chunk: [UInt8] = await withCheckedContinuation { continuation in
            queue.async {
                var buffer = [UInt8](repeating: 0, count: 4096)
                var count: Int
                repeat {
                    count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                } while count < 0 && errno == EINTR
                continuation.resume(returning: count > 0 ? Array(buffer[0..<count]) : [])
            }
        }
        state.withLock { state in
            if chunk.isEmpty {
                state.atEnd = true
            } else {
                state.buffer.removeFirst(state.offset)
                state.offset = 0
                state.buffer += chunk
            }
        }
    }
}
