#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps this process's open files from the programs it starts.
///
/// SwiftNIO opens its sockets without close-on-exec, so any program this process starts
/// without closing them itself inherits them. The one that matters is the Swift runtime's
/// crash reporter (`swift-backtrace`): started as the process crashes, it would keep the
/// server's listening socket, and so its port, for as long as it runs, and a restarted
/// server could not listen there. A server marks its files once it listens.
public enum InheritedFiles {
    /// Marks every open file past standard error close-on-exec, and says how many it
    /// marked; `nil` where the open files cannot be listed.
    @discardableResult
    public static func keepFromChildren() -> Int? {
        #if os(Linux)
            guard let directory = opendir("/proc/self/fd") else { return nil }
            defer { closedir(directory) }
            let own = dirfd(directory)
            var marked = 0
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let descriptor = Int32(name), descriptor > 2, descriptor != own else { continue }
                let flags = fcntl(descriptor, F_GETFD)
                guard flags >= 0, flags & FD_CLOEXEC == 0 else { continue }
                if fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 { marked += 1 }
            }
            return marked
        #else
            return nil
        #endif
    }
}
