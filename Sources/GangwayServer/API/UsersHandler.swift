import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The users who sign in with a password (`gangway admin users`).
struct UsersHandler: APIHandler {
    let services: APIServices

    func revokeUserSessions(
        _ input: Operations.RevokeUserSessions.Input
    ) async throws -> Operations.RevokeUserSessions.Output {
        let user = try await user(input.path.username)
        try await perform { try await storage.revokeSessions(username: user.username, appID: nil, deviceID: nil) }
        logger.notice("sessions revoked", metadata: ["user": "\(user.username)"])
        return .noContent(.init())
    }

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let query = input.query
        guard query.prefix != nil || query.search != nil || query.after != nil || query.limit != nil else {
            return .ok(.init(body: .json(try await perform { try await storage.users() }.map(Self.wire))))
        }
        let limit = try Validation.listLimit(query.limit)
        for (name, text) in [("prefix", query.prefix), ("search", query.search), ("after", query.after)] {
            guard let text else { continue }
            guard APILimits.usernamePrefix.contains(text.unicodeScalars.count) else {
                throw APIError.badRequest(
                    "\(name) holds at most \(APILimits.usernamePrefix.upperBound) characters.",
                    code: .invalidField
                )
            }
        }
        // No user's name holds a control character (and PostgreSQL text cannot hold a NUL).
        if [query.prefix, query.search, query.after].contains(where: { Validation.hasControlCharacters($0 ?? "") }) {
            return .ok(.init(body: .json([])))
        }
        let users = try await perform {
            // Names are kept in lower case, as they are unique in any case: `BOB` is `bob`.
            if let search = query.search, !search.isEmpty {
                try await storage.users(
                    prefix: query.prefix ?? "",
                    containing: search,
                    after: query.after?.lowercased(),
                    limit: limit
                )
            } else {
                try await storage.users(prefix: query.prefix ?? "", after: query.after?.lowercased(), limit: limit)
            }
        }
        return .ok(.init(body: .json(users.map(Self.wire))))
    }

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.username(body.username)
        try Validation.newPassword(body.password)
        if let name = body.displayName { try Validation.name(name, "displayName") }
        let username = body.username.lowercased()
        let user = UserRecord(
            username: username,
            displayName: body.displayName ?? body.username,
            passwordHash: try await passwords.hash(body.password),
            createdAt: now()
        )
        do {
            try await storage.insertUser(user)
        } catch  where error.code == .duplicate {
            throw APIError(.conflict, .userExists, "A user with this name exists already.")
        } catch {
            throw APIError.storage(error)
        }
        AuditNote.current?.target = "/admin/users/\(user.username)"
        AuditNote.current?.add("displayName: \(user.displayName)")
        return .created(.init(body: .json(Self.wire(user))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        return .ok(.init(body: .json(Self.wire(try await user(input.path.username)))))
    }

    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let old = try await user(input.path.username)
        var user = old
        if let name = body.displayName {
            try Validation.name(name, "displayName")
            user.displayName = name
        }
        if let password = body.password {
            try Validation.newPassword(password)
            user.passwordHash = try await passwords.hash(password)
        }
        if let blocked = body.blocked { user.blocked = blocked }
        if let attributes = body.attributes?.additionalProperties {
            user.attributes = try Self.checked(attributes)
        }
        try await perform { try await storage.updateUser(user) }
        AuditNote.current?.change("displayName", from: old.displayName, to: user.displayName)
        AuditNote.current?.change("blocked", from: old.blocked, to: user.blocked)
        AuditNote.current?.change("attributes", from: old.attributes, to: user.attributes)
        if body.password != nil { AuditNote.current?.add("password set") }
        if body.blocked == true || body.password != nil {
            // A blocked user, or one whose password changed, is signed out everywhere, and
            // the recovery secrets given out so far open nothing: whoever learns the new
            // password gets a secret that does not open a store wrapped before the change.
            try await perform { try await storage.revokeSessions(username: user.username, appID: nil, deviceID: nil) }
            try await devices.rotateRecoverySecrets(
                try await perform { try await storage.devices(username: user.username) }
            )
        }
        return .ok(.init(body: .json(Self.wire(user))))
    }

    func user(_ username: String) async throws(APIError) -> UserRecord {
        guard !Validation.hasControlCharacters(username),
            let user = try await perform({ try await storage.user(named: username.lowercased()) })
        else {
            throw APIError.notFound(.userNotFound, "There is no user with this name.")
        }
        return user
    }

    static func wire(_ user: UserRecord) -> Components.Schemas.User {
        .init(
            username: user.username,
            displayName: user.displayName,
            blocked: user.blocked,
            createdAt: user.createdAt,
            attributes: .init(additionalProperties: user.attributes.values)
        )
    }

    /// A user's attributes as the document bounds them: names of fields' form, at most
    /// ``APILimits/userAttributes``, each of at most ``APILimits/attributeValues`` values,
    /// each once, of text an entity's field could hold.
    static func checked(_ attributes: [String: [String]]) throws(APIError) -> UserAttributes {
        guard APILimits.userAttributes.contains(attributes.count) else {
            throw APIError.badRequest(
                "A user has at most \(APILimits.userAttributes.upperBound) attributes.",
                code: .invalidField
            )
        }
        for (name, values) in attributes {
            try Validation.fieldName(name)
            guard APILimits.attributeValues.contains(values.count), Set(values).count == values.count else {
                throw APIError.badRequest(
                    "An attribute lists at most \(APILimits.attributeValues.upperBound) values, each once.",
                    code: .invalidField
                )
            }
            for value in values { try Validation.text(value, "a value of \(name)", APILimits.attributeValue) }
        }
        return UserAttributes(attributes)
    }
}
