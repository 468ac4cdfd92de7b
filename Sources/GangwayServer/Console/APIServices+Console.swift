import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes

/// What the console asks of the server (``ConsoleServices``), answered by the services the
/// API's handlers share: an operator's sign-in is counted and checked as a user's is.
extension APIServices: ConsoleServices {
    var clientAddress: String { RequestInfo.current.clientAddress(trusting: settings.trustedProxies) }

    var requestID: String { RequestInfo.current.requestID }

    var maximumBodySize: Int { GatewayMiddleware.maximumBodySize }

    func enrolmentSecret(tokenHash: Data) -> Data {
        OperatorsHandler(services: self).enrolmentSecret(tokenHash)
    }

    func noteInAudit(_ detail: String) {
        AuditNote.current?.add(detail)
    }

    func runOperation<Result>(_ body: () async throws -> Result) async throws -> Result {
        var info = RequestInfo.current
        info.bearerToken = nil
        return try await RequestInfo.$current.withValue(info) { try await body() }
    }

    func checkOperatorPassword(
        name: String,
        password: String,
        knownBrowser: String?
    ) async throws -> OperatorPasswordCheck {
        let address = clientAddress
        // A browser this operator signed in with before is counted apart and let in first:
        // strangers' guesses at the name lock no one out of the browser they use.
        let cookieHash = try? await SessionsHandler(services: self).knownDeviceCookie(
            knownBrowser,
            username: SignInThrottle.operatorKey(name)
        )
        let (throttle, storage, passwords) = (self.throttle, self.storage, self.passwords)
        let checked: (SignInThrottle.Admission, OperatorRecord?, Bool)
        do {
            // Counted only once a check may run: a busy answer counts nowhere.
            checked = try await passwords.admitted(preferred: cookieHash != nil, console: true) {
                let admission = try await throttle.admitOperator(name: name, address: address, cookieHash: cookieHash)
                let record = try? await storage.operatorRecord(named: name)
                let matches = try await passwords.verify(password, against: record?.passwordHash)
                return (admission, record, matches)
            }
        } catch {
            throw (error as? APIError) ?? .busy
        }
        let (admission, record, matches) = checked
        return OperatorPasswordCheck(record: record, matches: matches, isKnownBrowser: cookieHash != nil) {
            try? await throttle.succeeded(admission)
        }
    }

    func newKnownBrowser(operator name: String) async -> String? {
        try? await SessionsHandler(services: self).newDeviceCookie(for: SignInThrottle.operatorKey(name))
    }

    func hashPassword(_ password: String) async throws -> String {
        try await passwords.hash(password)
    }

    func seal(_ secret: Data, for purpose: String) throws -> Data {
        try keys.server.seal(secret, for: purpose)
    }

    func open(_ sealed: Data, for purpose: String, plainLength: Int) throws -> Data {
        try keys.server.open(sealed, for: purpose, plainLength: plainLength)
    }
}

extension APIError: ConsoleRefusal {}

extension AccessPolicy: ConsoleAccess {
    func check(operator name: String, role: OperatorRole, for operationID: String) throws {
        try check(.console(operator: name, role: role), for: operationID)
    }
}
