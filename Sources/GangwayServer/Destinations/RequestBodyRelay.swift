import NIOCore
import Synchronization

/// A device's request body on its way to a destination: one task of the relay's own (the
/// pump) is the only reader of the body, and the HTTP client reads what it passes on.
///
/// The HTTP server reads the rest of a request's body once the handler returns, and the
/// body's sequence takes one reader at a time: a second reader traps and ends the process.
/// The HTTP client, though, goes on reading a body after the backend's answer has come (a
/// backend that answers early, before reading a body it refuses, as many do). So the
/// client never reads the body itself, and the proxy, before it ends, ``finish()``es the
/// relay, which waits for the pump: what the device still sends is then read and dropped
/// by the pump, and by no one else at once.
///
/// The pump hands one buffer at a time to the client and waits until it is taken, so a
/// relay holds at most one buffer of the device's.
final class RequestBodyRelay: Sendable {
    /// How the pump's reading ended.
    enum Outcome: Sendable, Equatable {
        /// The body was read to its end.
        case complete
        /// The body went past the limit; the rest was left unread.
        case tooLarge
        /// The body could not be read (the device's connection ended in the middle).
        case failed
    }

    private enum Mode {
        /// Buffers go to the client.
        case forwarding
        /// The backend answered: buffers are dropped, and the client's next read waits
        /// until ``close()``.
        case stopped
        /// The client's reads end with an error.
        case closed
    }

    private struct State {
        var mode = Mode.forwarding
        /// A buffer the pump passed and the client has not taken.
        var pending: ByteBuffer?
        /// The pump's end, once it came while forwarding: `nil` for a whole body.
        var end: (any Error)??
        var reader: CheckedContinuation<ByteBuffer?, any Error>?
        var writer: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let pump = Mutex<Task<Outcome, Never>?>(nil)

    /// Starts reading `body`, which ends past `limit` bytes.
    init<Body: AsyncSequence & Sendable>(reading body: Body, limit: Int) where Body.Element == ByteBuffer {
        let task = Task { [self] in await read(body, limit: limit) }
        pump.withLock { $0 = task }
    }

    /// The pump: reads `body` to its end, or to `limit` bytes past which it stops.
    private func read<Body: AsyncSequence & Sendable>(
        _ body: Body,
        limit: Int
    ) async -> Outcome where Body.Element == ByteBuffer {
        var seen = 0
        do {
            for try await buffer in body {
                seen += buffer.readableBytes
                if seen > limit {
                    end(BodyTooLarge())
                    return .tooLarge
                }
                await deliver(buffer)
            }
            end(nil)
            return .complete
        } catch {
            end(error)
            return .failed
        }
    }

    /// Waits until the pump has stopped reading the body, and says how it ended.
    var finished: Outcome {
        get async {
            guard let pump = pump.withLock({ $0 }) else { return .failed }
            return await pump.value
        }
    }

    /// The backend answered: what the device still sends is dropped, and the client gets
    /// nothing more.
    func stop() {
        let writer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.mode == .forwarding { state.mode = .stopped }
            state.pending = nil
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume()
    }

    /// Ends the relay once the proxy is done with it: stops it, waits for the pump (after
    /// this, nothing reads the body), and ends the client's reads. Says how the body's
    /// reading ended.
    @discardableResult
    func finish() async -> Outcome {
        stop()
        let outcome = await finished
        close()
        return outcome
    }

    /// Ends the client's reads, once its request is over: a read still waiting ends with
    /// an error.
    func close() {
        let (reader, writer) = state.withLock { state in
            state.mode = .closed
            state.pending = nil
            defer {
                state.reader = nil
                state.writer = nil
            }
            return (state.reader, state.writer)
        }
        reader?.resume(throwing: CancellationError())
        writer?.resume()
    }

    /// The pump's side: passes `buffer` on and waits until the client took it, or the
    /// relay stopped.
    private func deliver(_ buffer: ByteBuffer) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enum Step {
                case dropped
                case taken(CheckedContinuation<ByteBuffer?, any Error>)
                case waiting
            }
            let step = state.withLock { state -> Step in
                guard state.mode == .forwarding else { return .dropped }
                if let reader = state.reader {
                    state.reader = nil
                    return .taken(reader)
                }
                state.pending = buffer
                state.writer = continuation
                return .waiting
            }
            switch step {
            case .dropped:
                continuation.resume()
            case .taken(let reader):
                reader.resume(returning: buffer)
                continuation.resume()
            case .waiting:
                break
            }
        }
    }

    /// The pump's side: the body ended (`error` is `nil`) or failed.
    private func end(_ error: (any Error)?) {
        let reader = state.withLock { state -> CheckedContinuation<ByteBuffer?, any Error>? in
            guard state.mode == .forwarding else { return nil }
            state.end = .some(error)
            defer { state.reader = nil }
            return state.reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// The client's side: the next buffer, `nil` at the body's end.
    fileprivate func next() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
            enum Step {
                case give(ByteBuffer, CheckedContinuation<Void, Never>?)
                case end((any Error)?)
                case wait
            }
            let step = state.withLock { state -> Step in
                switch state.mode {
                case .closed:
                    return .end(CancellationError())
                case .stopped:
                    state.reader = continuation
                    return .wait
                case .forwarding:
                    if let buffer = state.pending {
                        state.pending = nil
                        defer { state.writer = nil }
                        return .give(buffer, state.writer)
                    }
                    if let end = state.end { return .end(end) }
                    state.reader = continuation
                    return .wait
                }
            }
            switch step {
            case .give(let buffer, let writer):
                writer?.resume()
                continuation.resume(returning: buffer)
            case .end(let error?):
                continuation.resume(throwing: error)
            case .end(nil):
                continuation.resume(returning: nil)
            case .wait:
                break
            }
        }
    }
}

extension RequestBodyRelay: AsyncSequence {
    typealias Element = ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        let relay: RequestBodyRelay

        func next() async throws -> ByteBuffer? {
            try await relay.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(relay: self)
    }
}
