/// A misuse of a ``ServerHost``, or a server that is not listening.
public struct ServerHostError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case alreadyRunning
        case finished
        case notListening
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// ``ServerHost/run()`` was called while the host runs.
    public static let alreadyRunning = ServerHostError(.alreadyRunning)
    /// ``ServerHost/run()`` was called after the host finished: a host runs once.
    public static let finished = ServerHostError(.finished)
    /// The server does not listen: it stopped, or failed to start.
    public static let notListening = ServerHostError(.notListening)

    /// What went wrong, for a person.
    public var description: String {
        switch code {
        case .alreadyRunning: "the server host is running already"
        case .finished: "the server host has finished; a host runs once"
        case .notListening: "the server is not listening"
        }
    }
}
