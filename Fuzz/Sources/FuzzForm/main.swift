import Foundation
import FuzzSupport
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HummingbirdCore

@testable import GangwayServer

// Form and query bodies of the OAuth pages: `FormBody.fields` reads the body a browser
// (or anyone) posts to the sign-in, device and consent pages, before anything else is
// checked; `AuthorizationRequest.parse` reads the authorization request from that form
// or from the query (as Hummingbird splits it); `UserCode.normalized` reads what a person
// typed on the device page.
//
// Modes (first byte): 0 reads the rest as a form body and as a query; 1 writes fields made
// from the rest (NUL-separated names and values) as a form body and reads them back.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 2) else { return 0 }
    switch mode {
    case 0: readBody(rest.text)
    default: roundTripFields(rest)
    }
    return 0
}

enum Fixture {
    /// An `oauth2` app with one redirect URI of each kind RFC 8252 allows.
    static let app = AppRecord(
        id: "checks",
        name: "Ground checks",
        authentication: AppAuthentication(
            type: .oauth2,
            redirectURIs: [
                "com.airline.checks:/oauth2redirect", "http://127.0.0.1/callback",
                "https://checks.airline.example/oauth/callback",
            ]
        ),
        createdAt: Date(timeIntervalSince1970: 1_790_000_000)
    )
}

private func readBody(_ text: String) {
    let form = FormBody.fields(text)
    check(form)
    _ = UserCode.normalized(form["user_code"] ?? text)

    // The sign-in page's GET: the query as Hummingbird splits it, first value of a name.
    var query: [String: String] = [:]
    for (name, value) in URI("/apps/checks/oauth/authorize?" + text).queryParameters where query[String(name)] == nil {
        query[String(name)] = String(value)
    }
    check(query)
}

/// What the pages do with fields: the authorization request, and when it is taken, the
/// form that carries it on and the redirect back to the app.
private func check(_ fields: [String: String]) {
    guard case .success(let request) = AuthorizationRequest.parse(fields, app: Fixture.app) else { return }
    // The sign-in form carries the request on: read back, it is the same request.
    let carried = FormBody.fields(FormBody.text(request.formFields(app: Fixture.app)))
    guard case .success(let again) = AuthorizationRequest.parse(carried, app: Fixture.app) else {
        invariant(false, "the sign-in form's fields read back as an authorization request")
        return
    }
    invariant(again == request, "the sign-in form carries the authorization request unchanged")
    _ = request.formAction
    // The redirect to the app gives the state back exactly (RFC 6749 §4.1.2).
    let location = AuthorizationRequest.location(request.redirectURI, [("code", "c0de"), ("state", request.state)])
    let returned = location.split(separator: "?", maxSplits: 1).last.map { FormBody.fields(String($0)) } ?? [:]
    invariant(returned["state"] == request.state, "the redirect gives the state back as it came")
}

private func roundTripFields(_ bytes: ArraySlice<UInt8>) {
    let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(\.text)
    let fields = stride(from: 0, to: parts.count - 1, by: 2).map { (parts[$0], parts[$0 + 1]) }
    var expected: [String: String] = [:]
    for (name, value) in fields where expected[name] == nil { expected[name] = value }
    invariant(FormBody.fields(FormBody.text(fields)) == expected, "a form body reads back as written")
}
