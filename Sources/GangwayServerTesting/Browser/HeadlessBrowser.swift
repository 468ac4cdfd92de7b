import AsyncHTTPClient
import Foundation
import GangwaySystem
import GangwayTesting
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's `chromium`, headless, driven through `chromedriver` with the W3C WebDriver
/// protocol (JSON over HTTP on loopback, through AsyncHTTPClient: FoundationNetworking's
/// URLSession cannot read chromedriver's answers), for the server's HTML pages: in the
/// server's tests and in end-to-end tests of the built `gangway`.
public struct HeadlessBrowser: Sendable {
    public static let chromium = "/usr/bin/chromium"
    public static let driver = "/usr/bin/chromedriver"

    /// Whether both are installed; tests that need them are skipped, and say so, when not.
    public static var isInstalled: Bool {
        [chromium, driver].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let process: Process
    private let endpoint: URL
    private let session: String
    /// The driver's and the browser's temporary directory (`TMPDIR`), removed with them:
    /// a browser that is killed leaves its profile and singleton files there, not in the
    /// machine's `/tmp`, and it sits in the test process's directory (`TestLeftovers`),
    /// so what a killed test process's browser left goes too.
    private let scratch: URL

    /// Starts the driver and a browser with a phone-sized window.
    public static func start() async throws -> HeadlessBrowser {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            try TestLeftovers.prepareDirectory()
            // Short: the browser's socket path below it must stay within a Unix socket's
            // 108 bytes.
            let scratch = TestLeftovers.directory.appendingPathComponent("browser-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(
                at: scratch,
                withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700]
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: driver)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.start()
            } catch {
                try? FileManager.default.removeItem(at: scratch)
                throw error
            }
            let endpoint = URL(string: "http://127.0.0.1:\(port)")!
            do {
                for attempt in 0..<50 {
                    if (try? await call(endpoint, "GET", "status", nil)) != nil { break }
                    if attempt == 49 || !process.isRunning { throw Failure(description: "chromedriver did not start") }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let capabilities: [String: Any] = [
                    "capabilities": [
                        "alwaysMatch": [
                            "browserName": "chrome",
                            "goog:chromeOptions": [
                                "binary": chromium,
                                "args": [
                                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                    "--window-size=390,844",
                                    // No crash handler: it leaves the browser's process group.
                                    "--disable-crash-reporter", "--disable-breakpad",
                                ],
                            ],
                        ]
                    ]
                ]
                let created = try await call(endpoint, "POST", "session", capabilities)

                guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
                    throw Failure(description: "no WebDriver session: \(created)")
                }
                return HeadlessBrowser(process: process, endpoint: endpoint, session: id, scratch: scratch)
            } catch {
                await Self.end(process, scratch: scratch)
                lastError = error
            }
        }
        throw lastError ?? Failure(description: "chromedriver did not start")
    }

    /// Runs `body` with a browser of its own, ended however `body` ends.
    public static func using<Result: Sendable>(
        _ body: (HeadlessBrowser) async throws -> Result
    ) async throws -> Result {
        let browser = try await start()
        do {
            let result = try await body(browser)
            await browser.stop()
            return result
        } catch {
            await browser.stop()
            throw error
        }
    }

    /// The page's source once it holds `text`, or as it is after 10 seconds.
    @discardableResult
    public func source(once text: String) async throws -> String {
        var source = ""
        for _ in 0..<100 {
            source = try await self.source()
            if source.contains(text) { return source }
            try await Task.sleep(for: .milliseconds(100))
        }
        return source
    }

    /// Ends the browser and the driver.
    public func stop() async {
        _ = try? await Self.call(endpoint, "DELETE", "session/\(session)", nil)
        await Self.end(process, scratch: scratch)
    }

    /// Kills the driver and the browser it started, and waits for the driver without
    /// holding a thread (`Process.exit(within:)` of GangwayTesting). Never a loop of sleeps: in
    /// a cancelled task each sleep throws at once, and two such loops took both of the
    /// pool's threads for ever, starving every other test (seen once, a run stalled at
    /// 900 s).
    ///
    /// Foundation starts the driver as the leader of a process group of its own, which
    /// the browser's processes join: the whole group goes, so no browser outlives a test,
    /// and then their temporary directory.
    private static func end(_ process: Process, scratch: URL) async {
        let id = process.processIdentifier
        if getpgid(id) == id { kill(-id, SIGKILL) }
        kill(id, SIGKILL)
        try? await process.exit(within: .seconds(10))
        try? FileManager.default.removeItem(at: scratch)
    }

    public func open(_ url: String) async throws {
        _ = try await command("POST", "url", ["url": url])
    }

    /// The element a CSS selector finds, by its WebDriver ID.
    public func element(_ selector: String) async throws -> String {
        try Self.elementID(try await command("POST", "element", ["using": "css selector", "value": selector]))
    }

    /// The element that has the keyboard focus.
    public func focused() async throws -> String {
        try Self.elementID(try await command("GET", "element/active", nil))
    }

    /// An attribute or property of an element (`id`, `value`…).
    public func property(_ name: String, of element: String) async throws -> String? {
        try await command("GET", "element/\(element)/property/\(name)", nil)["value"] as? String
    }

    /// Types `text` into an element as keys; `\u{E004}` is Tab and `\u{E007}` Enter.
    public func type(_ text: String, into element: String) async throws {
        _ = try await command("POST", "element/\(element)/value", ["text": text])
    }

    /// Empties a text field, as a person selecting its text and deleting it does.
    public func clear(_ element: String) async throws {
        _ = try await command("POST", "element/\(element)/clear", [:])
    }

    public func click(_ element: String) async throws {
        _ = try await command("POST", "element/\(element)/click", [:])
    }

    /// The address of the page the browser shows now, after any redirect.
    public func currentURL() async throws -> String {
        try await command("GET", "url", nil)["value"] as? String ?? ""
    }

    /// The page's HTML as the browser holds it now.
    public func source() async throws -> String {
        try await command("GET", "source", nil)["value"] as? String ?? ""
    }

    /// A PNG of what the window shows.
    public func screenshot() async throws -> Data {
        guard let text = try await command("GET", "screenshot", nil)["value"] as? String,
            let png = Data(base64Encoded: text)
        else { throw Failure(description: "no screenshot") }
        return png
    }

    /// Makes the window `width` by `height` CSS pixels (the browser starts at a phone's 390 by 844).
    public func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "window/rect", ["width": width, "height": height])
    }

    /// Runs a script in the page (WebDriver's, which the page's own policy does not govern).
    public func evaluate(_ script: String) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": script, "args": []])["value"]
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        try await Self.call(endpoint, method, "session/\(session)/\(path)", body)
    }

    private static func elementID(_ reply: [String: Any]) throws -> String {
        guard let value = reply["value"] as? [String: Any],
            let id = value["element-6066-11e4-a52e-4f735466cecf"] as? String
        else { throw Failure(description: "no such element: \(reply)") }
        return id
    }

    private static func call(
        _ endpoint: URL,
        _ method: String,
        _ path: String,
        _ body: [String: Any]?
    ) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: endpoint.appendingPathComponent(path).absoluteString)
        request.method = .init(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
        let reply = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard response.status == .ok else {
            throw Failure(description: "WebDriver \(method) \(path): \(reply)")
        }
        return reply
    }
}
