public import Foundation

/// A URL a person types for Gangway to reach over HTTP (a server's address, a public URL,
/// a legal text's link), read by one rule on every side: `http` or `https`, a host, a port
/// from 1 to 65535 when one is given, and no user information (a password in a URL ends
/// up in shell histories and logs).
///
/// Foundation takes `http://host:99999` as a URL whose port no socket can have; the
/// network layer then traps converting it. Everything a person types goes through
/// ``parse(_:)`` first, which says what is wrong in words.
public enum WebURL {
    /// The ports a URL may name (a server listening on port 0 is given one of these).
    public static let ports = 1...65_535

    /// Why a typed URL is refused.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, as the end of a sentence that starts with what was typed.
        public let reason: String

        /// Not a URL at all (spaces, a lone scheme, unbalanced brackets).
        public static let notAURL = Problem(reason: "is not a URL")
        /// Another scheme than `http` or `https`, or none.
        public static let notHTTP = Problem(reason: "must start with http:// or https://")
        /// No host after the scheme.
        public static let noHost = Problem(reason: "names no host")
        /// A port of 0 or past 65535.
        public static let portOutOfRange = Problem(
            reason: "has a port outside \(ports.lowerBound) to \(ports.upperBound)"
        )
        /// A user name or password before the host.
        public static let userInformation = Problem(
            reason: "must not carry a user name or password (give secrets in a file)"
        )

        public var description: String { reason }
    }

    /// `text`, trimmed of surrounding spaces, as a URL Gangway can reach; or why not.
    public static func parse(_ text: String) throws(Problem) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let components = URLComponents(string: trimmed), let url = components.url else {
            throw .notAURL
        }
        guard let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw .notHTTP
        }
        guard let host = components.host, !host.isEmpty else { throw .noHost }
        if let port = components.port, !ports.contains(port) { throw .portOutOfRange }
        guard components.user == nil, components.password == nil else { throw .userInformation }
        return url
    }

    /// The password `url` holds, in its user part (`user:password@`) or its query
    /// (`?password=`, as libpq takes one); `nil` when it holds none, or an empty one.
    public static func password(in url: String) -> String? {
        guard let components = URLComponents(string: url) else { return nil }
        let password = components.password ?? components.queryItems?.last { $0.name == "password" }?.value
        return password?.isEmpty == false ? password : nil
    }

    /// `url` with its password, wherever ``password(in:)`` finds it, shown as `***`: for
    /// what a person reads.
    public static func hidingPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), password(in: url) != nil else { return url }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map {
            $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0
        }
        return components.string ?? "(a URL)"
    }

    /// `host` as a URL's authority takes it: an IPv6 address in brackets (`[::1]`), any
    /// other host as it is; with `:port` when there is one.
    public static func authority(host: String, port: Int? = nil) -> String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return bracketed + (port.map { ":\($0)" } ?? "")
    }

    /// One sentence for a person: `--server 'http://x:99999' has a port outside 1 to 65535.`
    /// A password in what was typed is shown as `***`: the sentence may reach a log.
    public static func message(_ label: String, _ text: String, _ problem: Problem) -> String {
        // What no URL reader takes still hides what stands before an `@`.
        let hidden = hidingPassword(text).replacing(/:\/\/[^\/@]*:[^\/@]*@/, with: "://***@")
        return "\(label) '\(TextRules.shown(hidden, limit: 200))' \(problem.reason)."
    }

    /// The origin of `url` (`scheme://host[:port]`), for a CSP source list.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.percentEncodedHost, ["http", "https"].contains(scheme)
        else { return nil }
        return "\(scheme)://" + authority(host: host, port: components.port)
    }
}
