import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// Renews a session the server no longer takes with the refresh token kept beside it, one
/// renewal at a time: two calls that meet the same ended session share one refresh, since
/// a refresh token is spent at its first use and a second use would revoke its whole
/// family (RFC 9700 §4.14.2).
actor SessionRenewal {
    private var running: [SessionToken: Task<SessionToken?, any Error>] = [:]
    /// The sign-ins again under way, by the session they replace (or the user signed out
    /// on the server).
    private var signingIn: [String: Task<SessionToken, any Error>] = [:]

    /// The token to use instead of `ended` once the person signed in again: the one
    /// already kept when another call's sign-in got it, else a new one from `signIn`,
    /// which asks the person; calls that meet the same ended session together share one
    /// sign-in, so the person is asked once.
    ///
    /// - Parameter key: The ended session, or what names a session signed out on the
    ///   server.
    func signInAgain(
        _ ended: SessionToken?,
        key: String,
        credentials: any CredentialStore,
        signIn: @escaping @Sendable () async throws -> SessionToken
    ) async throws -> SessionToken {
        if let task = signingIn[key] { return try await task.value }
        if let kept = try credentials.sessionToken(), kept != ended { return kept }
        let task = Task { try await signIn() }
        signingIn[key] = task
        defer { signingIn[key] = nil }
        return try await task.value
    }

    /// The token to use instead of `ended`: the one already kept when another call renewed
    /// it, else a new one from the refresh token (kept, with the next refresh token, in
    /// `credentials`).
    ///
    /// - Returns: `nil` when there is no refresh token, or the server refused it (spent,
    ///   revoked, expired, the user blocked, the registration locked or wiped): the
    ///   person must sign in again. The refused token is forgotten.
    /// - Throws: ``ServiceError`` when the server could not be asked (offline).
    func renew(
        _ ended: SessionToken,
        credentials: any CredentialStore,
        client: MobileServicesClient,
        appID: String,
        logger: Logger
    ) async throws -> SessionToken? {
        if let task = running[ended] { return try await task.value }
        if let kept = try credentials.sessionToken(), kept != ended { return kept }
        let task = Task<SessionToken?, any Error> {
            guard let refresh = try credentials.refreshToken() else { return nil }
            let tokens: OAuthTokens
            do throws(ServiceError) {
                tokens = try await client.refreshTokens(appID: appID, refreshToken: refresh)
            } catch {
                guard error == .invalidGrant || error == .sessionExpired || error == .refused else { throw error }
                logger.notice("the server refused the refresh token; sign in again", metadata: ["reason": "\(error)"])
                try credentials.removeValue(forKey: ServiceCredentials.refreshToken)
                return nil
            }
            try credentials.put(Data(tokens.refreshToken.value.utf8), forKey: ServiceCredentials.refreshToken)
            try credentials.put(Data(tokens.accessToken.value.utf8), forKey: ServiceCredentials.token)
            logger.info("session renewed with the refresh token")
            return tokens.accessToken
        }
        running[ended] = task
        defer { running[ended] = nil }
        return try await task.value
    }
}

extension MobileServices {
    /// Runs `call` with the session's token. When the server says the session ended
    /// (401), the refresh token, if any, gets a new one silently; when there is none or
    /// the server refuses it, and `asking` is set, the same person signs in again through
    /// the context's presenter (seed 001: a request that meets an ended session triggers
    /// authentication), and the call goes on with the new session.
    ///
    /// - Throws: ``ServiceError/notSignedIn`` without a session when `asking` is false
    ///   (with it, the person signs in again first); the call's
    ///   ``ServiceError`` (``ServiceError/sessionExpired`` when the session could not be
    ///   renewed without asking); ``ServiceFlowError/cancelled`` when the person gave up
    ///   signing in again.
    public func withSession<Value: Sendable>(
        _ context: FlowContext,
        asking: Bool,
        _ call: (MobileServicesClient, AppConfiguration, SessionToken) async throws -> Value
    ) async throws -> Value {
        let (client, configuration) = try client(context)
        guard let token = try context.credentials.sessionToken() else {
            // Signed out on the server only (`SessionManager.logoutFromServer()`): the data
            // stayed open, and the next call asks the same person to sign in again.
            guard asking else { throw ServiceError.notSignedIn }
            let token = try await signInAgain(
                context,
                replacing: nil,
                message: StringTable.text("service.signedOut")
            )
            return try await call(client, configuration, token)
        }
        do {
            return try await call(client, configuration, token)
        } catch {
            guard (error as? ServiceError) == .sessionExpired else { throw error }
        }
        if let renewed = try await renewal.renew(
            token,
            credentials: context.credentials,
            client: client,
            appID: configuration.appID,
            logger: logger
        ) {
            do {
                return try await call(client, configuration, renewed)
            } catch {
                guard (error as? ServiceError) == .sessionExpired else { throw error }
            }
        }
        guard asking else { throw ServiceError.sessionExpired }
        let again = try await signInAgain(
            context,
            replacing: token,
            message: "\(ServiceError.sessionExpired.summary) \(ServiceError.sessionExpired.advice)"
        )
        return try await call(client, configuration, again)
    }

    /// The same person signs in again through the context's presenter, once for all the
    /// calls that meet the ended session together; the new session is kept.
    private func signInAgain(
        _ context: FlowContext,
        replacing ended: SessionToken?,
        message: String
    ) async throws -> SessionToken {
        let key = ended.map { "session:" + $0.value } ?? "signedOut:\(context.onboardingID)"
        return try await renewal.signInAgain(ended, key: key, credentials: context.credentials) {
            let session = try await signIn(
                context,
                message: message,
                expectedUser: try context.credentials.serverUser()
            )
            try context.credentials.keep(session)
            return session.token
        }
    }
}
