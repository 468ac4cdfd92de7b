import Synchronization

/// The terminal app's `offline on|off`: while on, the app behaves as if the network were
/// gone, and no call reaches the server (``TerminalTransport`` fails each).
final class NetworkSwitch: Sendable {
    private let offline = Mutex(false)

    /// Whether the app is cut off from the network.
    var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }
}
