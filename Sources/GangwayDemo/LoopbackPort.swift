import GangwayProtocol
import GangwaySystem

/// Whether a port on 127.0.0.1 can be listened on now: checked by binding it, with the
/// same address reuse the server sets, and letting it go.
enum LoopbackPort {
    static func isFree(_ port: Int) -> Bool {
        WebURL.ports.contains(port) && ListeningAddress.problem(host: "127.0.0.1", port: port) == nil
    }
}
