extension PasscodePolicy {
    /// A policy setting's value as the settings exchange carries it: a whole number or a
    /// flag.
    public enum SettingValue: Sendable, Hashable {
        case number(Int)
        case flag(Bool)

        public var number: Int? { if case .number(let value) = self { value } else { nil } }
        public var flag: Bool? { if case .flag(let value) = self { value } else { nil } }
    }

    /// One setting of a passcode policy, declared once: its settings-exchange key, the
    /// option `gangway admin policy` sets it with and that option's help, its range, and
    /// how it reads and writes the policy. The wire mapping (GangwayProtocol), the
    /// hand-written settings reader (``fromSettings(_:defaults:)``), the admin client's
    /// change and the command line all go through ``fields``; a new rule is one entry.
    public struct Field: Sendable, Identifiable, CustomStringConvertible {
        /// What the setting holds.
        public enum Kind: Sendable, Hashable {
            /// A whole number within the range.
            case number(ClosedRange<Int>)
            /// True or false.
            case flag
        }

        /// The settings-exchange key (``SettingsKey``), which names the setting in errors.
        public let key: String
        /// The long option of `gangway admin policy`, without its dashes.
        public let option: String
        /// The option's help.
        public let help: String
        public let kind: Kind
        private let read: @Sendable (PasscodePolicy) -> SettingValue
        private let write: @Sendable (inout PasscodePolicy, SettingValue) -> Void

        public var id: String { key }
        public var description: String { key }

        init(
            _ key: String,
            option: String,
            help: String,
            _ field: any WritableKeyPath<PasscodePolicy, Int> & Sendable,
            _ range: ClosedRange<Int>
        ) {
            self.key = key
            self.option = option
            self.help = help
            kind = .number(range)
            read = { .number($0[keyPath: field]) }
            write = { policy, value in if let number = value.number { policy[keyPath: field] = number } }
        }

        init(_ key: String, option: String, help: String, _ field: any WritableKeyPath<PasscodePolicy, Bool> & Sendable)
        {
            self.key = key
            self.option = option
            self.help = help
            kind = .flag
            read = { .flag($0[keyPath: field]) }
            write = { policy, value in if let flag = value.flag { policy[keyPath: field] = flag } }
        }

        init(
            _ key: String,
            option: String,
            help: String,
            range: ClosedRange<Int>,
            read: @escaping @Sendable (PasscodePolicy) -> Int,
            write: @escaping @Sendable (inout PasscodePolicy, Int) -> Void
        ) {
            self.key = key
            self.option = option
            self.help = help
            kind = .number(range)
            self.read = { .number(read($0)) }
            self.write = { policy, value in if let number = value.number { write(&policy, number) } }
        }

        /// The setting's value in `policy`.
        public func value(in policy: PasscodePolicy) -> SettingValue { read(policy) }

        /// Sets the setting in `policy`; a value of the other kind changes nothing.
        public func set(_ value: SettingValue, in policy: inout PasscodePolicy) { write(&policy, value) }
    }

    /// Every setting of a policy, in the order an administrator reads them.
    public static let fields: [Field] = [
        .minimumLength, .digitsOnly, .requiresDigit, .requiresUppercase, .requiresLowercase, .requiresSpecial,
        .minimumUniqueCharacters, .retryLimit, .lockTimeout, .expiresInDays, .historySize, .biometricsEnabled,
        .allowsSkip, .blocksCommon,
    ]

    /// The setting under settings key `key`, if it is one.
    public static func field(_ key: String) -> Field? { fields.first { $0.key == key } }

    /// Every setting of the policy, by settings key (whether a passcode is required at
    /// all is not the policy's: `passwordPolicyEnabled`).
    public var settings: [String: SettingValue] {
        Dictionary(uniqueKeysWithValues: Self.fields.map { ($0.key, $0.value(in: self)) })
    }

    /// `defaults` with `settings` laid over it (keys that are not a setting are ignored,
    /// so a newer server's settings do not break an older device), checked with
    /// ``validated()``.
    /// - Throws: ``PasscodePolicyError`` naming the settings key at fault.
    public init(settings: [String: SettingValue], defaults: PasscodePolicy = .standard) throws(PasscodePolicyError) {
        var policy = defaults
        for field in Self.fields {
            guard let value = settings[field.key] else { continue }
            switch (field.kind, value) {
            case (.number, .number), (.flag, .flag): field.set(value, in: &policy)
            case (.number, .flag): throw .wrongType(key: field.key, expected: "a whole number")
            case (.flag, .number): throw .wrongType(key: field.key, expected: "true or false")
            }
        }
        self = try policy.validated()
    }
}

extension PasscodePolicy.Field {
    /// ``PasscodePolicy/minimumLength``.
    public static let minimumLength = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.minimumLength,
        option: "min-length",
        help: "The shortest passcode allowed.",
        \.minimumLength,
        PasscodePolicy.Limits.minimumLength
    )
    /// ``PasscodePolicy/digitsOnly``.
    public static let digitsOnly = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.digitsOnly,
        option: "digits-only",
        help: "Digits only (true or false).",
        \.digitsOnly
    )
    /// ``PasscodePolicy/requiresDigit``.
    public static let requiresDigit = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.requiresDigit,
        option: "require-digit",
        help: "At least one digit (true or false).",
        \.requiresDigit
    )
    /// ``PasscodePolicy/requiresUppercase``.
    public static let requiresUppercase = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.requiresUppercase,
        option: "require-upper",
        help: "At least one uppercase letter (true or false).",
        \.requiresUppercase
    )
    /// ``PasscodePolicy/requiresLowercase``.
    public static let requiresLowercase = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.requiresLowercase,
        option: "require-lower",
        help: "At least one lowercase letter (true or false).",
        \.requiresLowercase
    )
    /// ``PasscodePolicy/requiresSpecial``.
    public static let requiresSpecial = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.requiresSpecial,
        option: "require-special",
        help: "At least one other character (true or false).",
        \.requiresSpecial
    )
    /// ``PasscodePolicy/minimumUniqueCharacters``.
    public static let minimumUniqueCharacters = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.minimumUniqueCharacters,
        option: "min-unique",
        help: "The fewest different characters.",
        \.minimumUniqueCharacters,
        PasscodePolicy.Limits.minimumUniqueCharacters
    )
    /// ``PasscodePolicy/retryLimit``.
    public static let retryLimit = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.retryLimit,
        option: "retry-limit",
        help: "Wrong passcodes before the user's data is erased.",
        \.retryLimit,
        PasscodePolicy.Limits.retryLimit
    )
    /// ``PasscodePolicy/lockTimeout``.
    public static let lockTimeout = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.lockTimeout,
        option: "lock-timeout",
        help: "Seconds away before the passcode is asked again.",
        range: PasscodePolicy.Limits.lockTimeoutSeconds,
        read: { Int($0.lockTimeout.components.seconds) },
        write: { policy, seconds in policy.lockTimeout = .seconds(seconds) }
    )
    /// ``PasscodePolicy/expiresAfterDays``.
    public static let expiresInDays = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.expiresInDays,
        option: "expires-days",
        help: "Days a passcode lasts (0: never expires).",
        range: PasscodePolicy.Limits.expiresAfterDays,
        read: { $0.expiresAfterDays ?? 0 },
        write: { policy, days in policy.expiresAfterDays = days == 0 ? nil : days }
    )
    /// ``PasscodePolicy/historyCount``.
    public static let historySize = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.historySize,
        option: "history",
        help: "How many earlier passcodes may not be reused.",
        \.historyCount,
        PasscodePolicy.Limits.historyCount
    )
    /// ``PasscodePolicy/allowsBiometrics``.
    public static let biometricsEnabled = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.biometricsEnabled,
        option: "biometrics",
        help: "Whether biometric unlock may be offered (true or false).",
        \.allowsBiometrics
    )
    /// ``PasscodePolicy/allowsSkip``.
    public static let allowsSkip = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.allowsSkip,
        option: "allow-skip",
        help: "Whether a user may choose no passcode (true or false).",
        \.allowsSkip
    )
    /// ``PasscodePolicy/blocksCommonPasscodes``.
    public static let blocksCommon = PasscodePolicy.Field(
        PasscodePolicy.SettingsKey.blocksCommon,
        option: "block-common",
        help: "Whether common passcodes are refused (true or false).",
        \.blocksCommonPasscodes
    )
}
