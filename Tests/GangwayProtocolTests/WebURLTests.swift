import Foundation
import GangwayProtocol
import Testing

@Suite("Typed URLs and authorities: one rule for the server, the admin and the device")
struct WebURLTests {
    @Test(
        "a host becomes a URL's authority: IPv6 in brackets, once; others as they are",
        arguments: [
            ("127.0.0.1", 8080, "127.0.0.1:8080"), ("::1", 45077, "[::1]:45077"), ("[::1]", 1, "[::1]:1"),
            ("fe80::1%eth0", 80, "[fe80::1%eth0]:80"), ("localhost", nil, "localhost"), ("::", nil, "[::]"),
        ] as [(String, Int?, String)]
    )
    func authority(host: String, port: Int?, expected: String) {
        #expect(WebURL.authority(host: host, port: port) == expected)
        #expect(URL(string: "http://" + WebURL.authority(host: host, port: port))?.host != nil || host.contains("%"))
    }

    @Test(
        "what a person types is refused with the reason, or read as the URL",
        arguments: [
            ("http://127.0.0.1:8080", nil), ("  https://gangway.example/base ", nil),
            ("ftp://x", WebURL.Problem.notHTTP),
            ("http://", .noHost), ("http://x:0", .portOutOfRange), ("http://x:65536", .portOutOfRange),
            ("http://u:p@x", .userInformation), ("", .notAURL), ("http://a b", .notAURL),
        ] as [(String, WebURL.Problem?)]
    )
    func parse(text: String, problem: WebURL.Problem?) {
        do throws(WebURL.Problem) {
            let url = try WebURL.parse(text)
            #expect(problem == nil, "\(text) was read as \(url)")
        } catch {
            #expect(error == problem, "\(text)")
        }
    }
}
