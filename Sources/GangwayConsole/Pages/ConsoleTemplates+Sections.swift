extension ConsoleTemplates {
    /// The sections an operator works in: apps and their settings, activation, operators,
    /// a user, data and logs.
    static let sectionSources: [String: String] = [
        "apps": """
        {{<layout}}{{$main}}
        <h1>Apps</h1>
        {{#hasApps}}
        <table>
        <caption>The apps this server serves</caption>
        <thead><tr><th scope="col">App</th><th scope="col">Name</th><th scope="col">Sign-in</th><th scope="col">Oldest version allowed</th></tr></thead>
        <tbody>
        {{#apps}}<tr><td data-label="App"><a href="{{path}}">{{id}}</a></td><td data-label="Name">{{name}}</td><td data-label="Sign-in">{{signInType}}</td><td data-label="Oldest version allowed">{{minimumVersion}}</td></tr>
        {{/apps}}
        </tbody>
        </table>
        {{/hasApps}}
        {{^hasApps}}<p>No app yet.</p>{{/hasApps}}
        {{#canCreate}}<h2>Add an app</h2>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/console/apps">
        <input type="hidden" name="form_token" value="{{formToken}}">
        {{#newApp}}<label for="appID">ID: letters, digits, '.', '_' and '-', a letter or digit first</label>
        <input id="appID" name="appID" required maxlength="64" autocomplete="off" value="{{id}}">
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="128" value="{{name}}">
        <label for="emailDomains">Work email domains</label>
        <input id="emailDomains" name="emailDomains" maxlength="4096" value="{{emailDomains}}" aria-describedby="emailDomains-hint">
        <p class="quiet hint" id="emailDomains-hint">Separated by commas or spaces; may be left empty. A person who types an address at one of them is sent to this app.</p>{{/newApp}}
        <button type="submit">Add the app</button>
        </form>{{/canCreate}}
        {{^canCreate}}<p>An admin adds apps, here or with <code>gangway admin apps add</code>.</p>{{/canCreate}}
        {{/main}}{{/layout}}
        """,
        "app": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="links"><a href="/console/apps">All apps</a> <a href="/console/apps/{{appID}}/activation">Its activation link</a> <a href="/console/devices?app={{appID}}">Its devices</a> <a href="/console/apps/{{appID}}/destinations">Its destinations</a></p>
        {{#saved}}<div class="notice" role="status"><p>Saved. What devices do at their next contact with the server:</p>
        <ul>{{#consequences}}<li>{{.}}</li>{{/consequences}}</ul></div>{{/saved}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^canEdit}}<p>Only an admin changes an app's settings; you can read them here.</p>{{/canEdit}}
        <p>People sign in with: {{signInType}}{{#provider}}, at {{.}}{{/provider}}. <a href="/console/apps/{{appID}}/sign-in">How people sign in</a></p>
        {{#hasChecklist}}<h2>The checklist a person sees when choosing a passcode</h2>
        <ul class="checklist">{{#checklist}}<li>{{.}}</li>{{/checklist}}</ul>{{/hasChecklist}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        {{#sections}}<fieldset><legend>{{title}}</legend>
        {{#fields}}
        {{#isFlag}}<div class="check"><input type="checkbox" id="{{key}}" name="{{key}}"{{#checked}} checked{{/checked}}{{#disabled}} disabled{{/disabled}}{{#describedBy}} aria-describedby="{{.}}"{{/describedBy}}{{#error}} aria-invalid="true"{{/error}}> <label for="{{key}}">{{label}}</label>{{#disabled}} <span class="state">{{#checked}}(on){{/checked}}{{^checked}}(off){{/checked}}</span>{{/disabled}}</div>{{/isFlag}}
        {{#isNumber}}<label for="{{key}}">{{label}}</label>
        <input id="{{key}}" name="{{key}}" type="number" inputmode="numeric" min="{{minimum}}" max="{{maximum}}" value="{{value}}" required{{#disabled}} disabled{{/disabled}}{{#describedBy}} aria-describedby="{{.}}"{{/describedBy}}{{#error}} aria-invalid="true"{{/error}}>{{/isNumber}}
        {{#isText}}<label for="{{key}}">{{label}}</label>
        <input id="{{key}}" name="{{key}}" maxlength="{{maxLength}}" value="{{value}}"{{#disabled}} disabled{{/disabled}}{{#describedBy}} aria-describedby="{{.}}"{{/describedBy}}{{#error}} aria-invalid="true"{{/error}}>{{/isText}}
        {{#isChoice}}<label for="{{key}}">{{label}}</label>
        <select id="{{key}}" name="{{key}}"{{#disabled}} disabled{{/disabled}}{{#describedBy}} aria-describedby="{{.}}"{{/describedBy}}{{#error}} aria-invalid="true"{{/error}}>{{#options}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/options}}</select>{{/isChoice}}
        {{#error}}<p class="error field-error" id="{{key}}-error">{{.}}</p>{{/error}}
        {{#hint}}<p class="quiet hint" id="{{key}}-hint">{{.}}</p>{{/hint}}
        {{/fields}}
        </fieldset>
        {{/sections}}
        {{#canEdit}}<button type="submit">Save</button>{{/canEdit}}
        </form>
        {{/main}}{{/layout}}
        """,
        "app-sign-in": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="links"><a href="/console/apps/{{appID}}">The app's settings</a></p>
        {{#saved}}<div class="notice" role="status"><p>Saved. What changes for the app's people:</p>
        <ul>{{#consequences}}<li>{{.}}</li>{{/consequences}}</ul></div>{{/saved}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^canEdit}}<p>Only an admin changes how people sign in; you can read it here.</p>{{/canEdit}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <fieldset><legend>How people sign in</legend>
        {{#types}}<div class="check"><input type="radio" id="type-{{value}}" name="type" value="{{value}}"{{#selected}} checked{{/selected}}{{^canEdit}} disabled{{/canEdit}}> <label for="type-{{value}}">{{title}}</label></div>{{/types}}
        </fieldset>
        <fieldset><legend>The company's OpenID provider (OAuth 2.0 only; leave empty for none)</legend>
        <label for="issuer">Issuer URL</label>
        <input id="issuer" name="issuer" type="url" maxlength="2048" value="{{issuer}}" placeholder="https://login.example.com"{{^canEdit}} disabled{{/canEdit}}>
        <label for="clientID">Client ID this server has there</label>
        <input id="clientID" name="clientID" maxlength="255" value="{{clientID}}" autocomplete="off"{{^canEdit}} disabled{{/canEdit}}>
        <label for="clientSecret">Client secret</label>
        <input id="clientSecret" name="clientSecret" type="password" maxlength="4096" autocomplete="new-password" aria-describedby="clientSecret-hint"{{^canEdit}} disabled{{/canEdit}}>
        <p class="quiet hint" id="clientSecret-hint">{{#hasClientSecret}}A secret is stored: leave this empty to keep it (for the same issuer and client ID). {{/hasClientSecret}}Sealed by the server, and never shown again.</p>
        <div class="check"><input type="checkbox" id="createsUsers" name="createsUsers"{{#createsUsers}} checked{{/createsUsers}}{{^canEdit}} disabled{{/canEdit}}> <label for="createsUsers">Give a person the provider knows a user at their first sign-in</label></div>
        {{#providerRedirect}}<p>Register this redirect URI at the provider: <code>{{.}}</code></p>{{/providerRedirect}}
        {{#consoleRedirect}}<p>For operators to sign in to this console through the provider (gangway admin operators link), register this one too: <code id="console-redirect">{{.}}</code></p>{{/consoleRedirect}}
        </fieldset>
        <fieldset><legend>The app's redirect URIs (authorization code grant)</legend>
        <label for="redirectURIs">One a line: a private-use scheme with a dot, http on 127.0.0.1 or [::1], or https</label>
        <textarea id="redirectURIs" name="redirectURIs" rows="4"{{^canEdit}} disabled{{/canEdit}}>{{redirectURIs}}</textarea>
        </fieldset>
        {{#canEdit}}<button type="submit">Save</button>{{/canEdit}}
        </form>
        {{/main}}{{/layout}}
        """,
        "app-destinations": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="links"><a href="/console/apps/{{appID}}">The app's settings</a></p>
        <p>The company's backends the app's devices reach at <code>/apps/{{appID}}/destinations/NAME/PATH</code>, forwarded to the URL with the path, as the signed-in person: a token the server signs for each request, which the backend checks against <code>{{keysPath}}</code>. The device's own token never reaches it.</p>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#hasDestinations}}<table>
        <caption>Each destination, and the requests forwarded in the last 7 days by the backend's status</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Carries</th><th scope="col">Requests</th>{{#canEdit}}<th scope="col"><span class="quiet">Action</span></th>{{/canEdit}}</tr></thead>
        <tbody>
        {{#destinations}}<tr><td data-label="Name">{{name}}</td><td data-label="URL"><code>{{url}}</code></td><td data-label="Carries">{{carries}}</td><td data-label="Requests">{{requests}}</td>{{#canEdit}}<td data-label="Action"><form method="post" action="{{action}}"><input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="action" value="remove"><input type="hidden" name="name" value="{{name}}"><button type="submit" class="danger" aria-label="Remove {{name}}">Remove…</button></form></td>{{/canEdit}}</tr>
        {{/destinations}}
        </tbody>
        </table>{{/hasDestinations}}
        {{^hasDestinations}}<p>No destination yet.</p>{{/hasDestinations}}
        {{^canEdit}}<p>Only an admin adds or removes destinations; you can read them here.</p>{{/canEdit}}
        {{#canEdit}}<form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="put">
        <fieldset><legend>Add a destination, or change one by its name</legend>
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="64" value="{{name}}" autocomplete="off">
        <label for="url">URL (https; http only on 127.0.0.1, localhost or [::1])</label>
        <input id="url" name="url" type="url" required maxlength="2048" value="{{url}}" placeholder="https://orders.example.com/api">
        <div class="check"><input type="radio" id="carries-identity" name="authentication" value="identity"{{^usesCredential}} checked{{/usesCredential}}> <label for="carries-identity">The signed-in person</label></div>
        <div class="check"><input type="radio" id="carries-credential" name="authentication" value="credential"{{#usesCredential}} checked{{/usesCredential}}> <label for="carries-credential">A fixed credential instead</label></div>
        <label for="credentialHeader">The credential's header</label>
        <input id="credentialHeader" name="credentialHeader" maxlength="64" value="{{credentialHeader}}" placeholder="X-API-Key" autocomplete="off">
        <label for="credential">The credential</label>
        <input id="credential" name="credential" type="password" maxlength="4096" autocomplete="new-password" aria-describedby="credential-hint">
        <p class="quiet hint" id="credential-hint">Sealed by the server and never shown again; left empty, a destination that has one keeps it.</p>
        </fieldset>
        <button type="submit">Save</button>
        </form>{{/canEdit}}
        {{/main}}{{/layout}}
        """,
        "activation": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="links"><a href="/console/apps/{{appID}}">The app's settings</a></p>
        <p>A signed link that configures the app for this server: opened on a device, or its QR code scanned, the app goes straight to the sign-in. It holds no secret.</p>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#canAct}}<form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="days">Days the link activates</label>
        <input id="days" name="days" type="number" inputmode="numeric" min="{{minimumDays}}" max="{{maximumDays}}" value="{{days}}" required>
        <button type="submit">Make a link</button>
        </form>{{/canAct}}
        {{^canAct}}<p>A viewer reads only: an operator or an admin makes activation links.</p>{{/canAct}}
        {{#link}}<section class="activation" aria-labelledby="made">
        <h2 id="made">The link</h2>
        {{#qrCode}}<img class="qr" src="{{qrCode}}" alt="QR code of the activation link" width="300" height="300">{{/qrCode}}
        <p><code id="link">{{link}}</code></p>
        <p>Activates until {{expires}} (UTC).</p>
        </section>{{/link}}
        {{/main}}{{/layout}}
        """,
        "operators": """
        {{<layout}}{{$main}}
        <h1>Operators</h1>
        <p>The people who run this server. A viewer reads; an operator also acts on users and devices; an admin also changes apps, their settings and the operators.</p>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#link}}<div class="notice" role="status"><p>Give this link to {{linkFor}} alone: it works once, until {{linkExpires}} (UTC), to set a password and a second factor.</p>
        <p><code id="enrolment-link">{{link}}</code></p></div>{{/link}}
        <table>
        <caption>Who may sign in</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Set up</th><th scope="col">Added</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr></thead>
        <tbody>
        {{#operators}}<tr><td data-label="Name">{{name}}</td><td data-label="Role">{{role}}</td><td data-label="Set up">{{status}}</td><td data-label="Added">{{created}}</td>{{#canAct}}<td data-label="Actions">
        {{^isSelf}}<form method="post" action="/console/operators/{{name}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label class="hidden" for="role-{{name}}">Role of {{name}}</label>
        <select id="role-{{name}}" name="role">{{#roles}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/roles}}</select>
        <button type="submit" name="action" value="role">Change role<span class="hidden"> of {{name}}</span></button>
        <button type="submit" name="action" value="enrol">New link<span class="hidden"> for {{name}}</span></button>
        <button type="submit" name="action" value="remove" class="danger">Remove…<span class="hidden"> {{name}}</span></button>
        </form>{{/isSelf}}{{#isSelf}}<span class="quiet">you</span>{{/isSelf}}</td>{{/canAct}}</tr>
        {{/operators}}
        </tbody>
        </table>
        {{#canAct}}<h2>Add an operator</h2>
        <form method="post" action="/console/operators">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="64" value="{{newName}}" autocomplete="off">
        <label for="role">Role</label>
        <select id="role" name="role">{{#roles}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/roles}}</select>
        <button type="submit">Add</button>
        </form>{{/canAct}}
        <h2>Sign-in through the company's provider</h2>
        <p>An operator linked to a person of an app's OpenID provider may sign in there instead, with the provider's own sign-in and second factor.</p>
        {{#hasIdentities}}<table>
        <caption>Provider identities</caption>
        <thead><tr><th scope="col">Operator</th><th scope="col">Issuer</th><th scope="col">Subject</th><th scope="col">Linked</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr></thead>
        <tbody>
        {{#identities}}<tr><td data-label="Operator">{{operatorName}}</td><td data-label="Issuer">{{issuer}}</td><td data-label="Subject">{{subject}}</td><td data-label="Linked">{{created}}</td>{{#canAct}}<td data-label="Actions">
        {{^isSelf}}<form method="post" action="/console/operators/{{operatorName}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="issuer" value="{{issuer}}">
        <input type="hidden" name="subject" value="{{subject}}">
        <button type="submit" name="action" value="unlink">Unlink<span class="hidden"> {{subject}} from {{operatorName}}</span></button>
        </form>{{/isSelf}}{{#isSelf}}<span class="quiet">you</span>{{/isSelf}}</td>{{/canAct}}</tr>
        {{/identities}}
        </tbody>
        </table>{{/hasIdentities}}{{^hasIdentities}}<p>No operator signs in through a provider.</p>{{/hasIdentities}}
        {{#canLink}}<form method="post" action="/console/operators">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="link">
        <label for="link-operator">Operator</label>
        <select id="link-operator" name="operator">{{#linkable}}<option>{{value}}</option>{{/linkable}}</select>
        <label for="link-issuer">Issuer URL (an app's provider)</label>
        <input id="link-issuer" name="issuer" type="url" required maxlength="2048" placeholder="https://login.example.com" value="{{linkIssuer}}">
        <label for="link-subject">Their subject there (sub)</label>
        <input id="link-subject" name="subject" required maxlength="255" autocomplete="off" value="{{linkSubject}}">
        <button type="submit">Link</button>
        </form>{{/canLink}}
        {{/main}}{{/layout}}
        """,
        "user": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="links"><a href="/console/users?q={{user.username}}">Back to the users</a></p>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <dl class="facts"><dt>Name</dt><dd>{{user.displayName}}</dd><dt>Status</dt><dd>{{user.status}}</dd><dt>Added</dt><dd>{{user.added}}</dd><dt>Attributes</dt><dd>{{attributesShown}}</dd></dl>
        {{#canAct}}<form method="post" action="{{action}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="back" value="user">
        <button type="submit" name="action" value="{{user.toggleAction}}">{{user.toggleTitle}}</button>
        <button type="submit" name="action" value="revoke" class="danger">End sessions…</button>
        </form>
        <h2>A new password</h2>
        <p>Their sessions end, and a device that kept data for a passcode reset asks them to sign in again.</p>
        <form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="password">
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
        <button type="submit">Set the password</button>
        </form>
        <h2>Attributes</h2>
        <p>Which part of each entity set with a subset they receive (a set whose subset is the field stand and the attribute stands gives them the entities of the stands listed). On an app whose people sign in through the company's provider, the attributes its claims set are set again at each sign-in.</p>
        <form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="attributes">
        <label for="attributes">One a line, as NAME=VALUE,VALUE (stands=12,14)</label>
        <textarea id="attributes" name="attributes" rows="4" maxlength="65536">{{attributes}}</textarea>
        <button type="submit">Set the attributes</button>
        </form>{{/canAct}}
        <h2>Identities at the company's provider</h2>
        {{#hasIdentities}}<table>
        <caption>When the provider signs one of these in, they are {{user.username}}</caption>
        <thead><tr><th scope="col">Provider (issuer)</th><th scope="col">Subject</th><th scope="col">Linked</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr></thead>
        <tbody>
        {{#identities}}<tr><td data-label="Provider (issuer)">{{issuer}}</td><td data-label="Subject">{{subject}}</td><td data-label="Linked">{{linked}}</td>{{#canAct}}<td data-label="Actions">
        <form method="post" action="{{action}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="unlink">
        <input type="hidden" name="issuer" value="{{issuer}}">
        <input type="hidden" name="subject" value="{{subject}}">
        <button type="submit">Unlink<span class="hidden"> {{subject}}</span></button>
        </form></td>{{/canAct}}</tr>
        {{/identities}}
        </tbody>
        </table>{{/hasIdentities}}
        {{^hasIdentities}}<p>None is linked.</p>{{/hasIdentities}}
        {{#canAct}}<form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="action" value="link">
        <label for="issuer">Provider's issuer</label>
        <input id="issuer" name="issuer" type="url" required maxlength="2048" value="{{issuer}}" placeholder="https://login.example.com">
        <label for="subject">The person's subject there</label>
        <input id="subject" name="subject" required maxlength="255" value="{{subject}}">
        <button type="submit">Link</button>
        </form>{{/canAct}}
        {{/main}}{{/layout}}
        """,
        "data": """
        {{<layout}}{{$main}}
        <h1>Data</h1>
        <form method="get" action="/console/data" role="search">
        <label for="app">App</label>
        <select id="app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/apps}}</select>
        <label for="outcome">Changes that ended</label>
        <select id="outcome" name="outcome">{{#outcomes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/outcomes}}</select>
        <label for="set">Entity set</label>
        <select id="set" name="set">{{#sets}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/sets}}</select>
        <button type="submit">Show</button>
        </form>
        <h2>Changes devices uploaded</h2>
        {{#hasChanges}}<table>
        <caption>The newest first: who made each, whose session carried it, how it ended</caption>
        <thead><tr><th scope="col">Received (UTC)</th><th scope="col">Entity</th><th scope="col">Author</th><th scope="col">Carried by</th><th scope="col">Outcome</th></tr></thead>
        <tbody>
        {{#changes}}<tr><td data-label="Received (UTC)">{{received}}</td><td data-label="Entity">{{entity}}</td><td data-label="Author">{{author}}</td><td data-label="Carried by">{{carrier}}</td><td data-label="Outcome">{{outcome}}{{#details}}<br><span class="quiet">{{.}}</span>{{/details}}</td></tr>
        {{/changes}}
        </tbody>
        </table>{{/hasChanges}}
        {{^hasChanges}}<p>No change of this kind.</p>{{/hasChanges}}
        <h2>Entities of {{entitySet}}</h2>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#hasEntities}}<table>
        <caption>As the server holds them, by ID{{#after}}, after {{after}}{{/after}}{{#moreEntities}}: {{moreEntities}} shown, more follow{{/moreEntities}}</caption>
        <thead><tr><th scope="col">ID</th><th scope="col">Version</th><th scope="col">Last changed (UTC)</th><th scope="col">Fields</th>{{#canEdit}}<th scope="col">Actions</th>{{/canEdit}}</tr></thead>
        <tbody>
        {{#entities}}<tr><td data-label="ID">{{id}}</td><td data-label="Version">{{version}}</td><td data-label="Last changed (UTC)">{{updated}}</td><td data-label="Fields">{{fields}}</td>{{#canEdit}}<td data-label="Actions">
        <form method="post" action="/console/data" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}"><input type="hidden" name="set" value="{{entitySet}}"><input type="hidden" name="id" value="{{id}}">
        <button type="submit" name="action" value="delete" class="danger">Delete…<span class="hidden"> {{id}}</span></button>
        </form></td>{{/canEdit}}</tr>
        {{/entities}}
        </tbody>
        </table>{{/hasEntities}}
        {{^hasEntities}}<p>No entity in this set{{#after}} after {{after}}{{/after}}.</p>{{/hasEntities}}
        {{#nextPage}}<p class="links"><a href="{{nextPage}}">Next entities</a></p>{{/nextPage}}
        {{#firstPage}}<p class="links"><a href="{{firstPage}}">First entities</a></p>{{/firstPage}}
        <h2>Schema of {{entitySet}}</h2>
        {{#hasSchema}}<table>
        <caption>Every write of the set is checked against it; devices build their local store from it</caption>
        <thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Indexed on devices</th></tr></thead>
        <tbody>
        {{#schema}}<tr><td data-label="Field">{{name}}</td><td data-label="Type">{{type}}</td><td data-label="Required">{{required}}</td><td data-label="Indexed on devices">{{indexed}}</td></tr>
        {{/schema}}
        </tbody>
        </table>{{/hasSchema}}
        {{#subsetText}}<p>Subset: {{subsetText}} (each user receives the entities whose field holds one of the values of their attribute).</p>{{/subsetText}}
        {{^hasSchema}}<p>No schema: the set takes any fields, as text.</p>{{/hasSchema}}
        <h2>Data source of {{entitySet}}</h2>
        {{#source}}<dl>
        <dt>Reads</dt><dd>{{reads}}</dd>
        <dt>Every</dt><dd>{{every}}</dd>
        <dt>Last read</dt><dd>{{lastRun}}</dd>
        <dt>Next read</dt><dd>{{nextRun}}</dd>
        </dl>
        {{#problem}}<p class="error">{{problem}}</p>{{/problem}}
        {{#hasRefusals}}<p>Rows the last read refused (the first ones):</p>
        <ul>{{#refusals}}<li>{{.}}</li>{{/refusals}}</ul>{{/hasRefusals}}
        {{#canEdit}}<form method="post" action="/console/data">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}"><input type="hidden" name="set" value="{{entitySet}}">
        <button type="submit" name="action" value="pull">Read the changes now</button>
        <button type="submit" name="action" value="pullFull">Read the whole set now</button>
        </form>{{/canEdit}}
        {{#hasDeliveries}}<table>
        <caption>Devices' changes waiting for the company's backend, oldest first</caption>
        <thead><tr><th scope="col">Change</th><th scope="col">Entity</th><th scope="col">Author</th><th scope="col">Received (UTC)</th><th scope="col">Fields</th><th scope="col">State</th>{{#canEdit}}<th scope="col">Actions</th>{{/canEdit}}</tr></thead>
        <tbody>
        {{#deliveries}}<tr><td data-label="Change">{{changeID}}</td><td data-label="Entity">{{entity}}</td><td data-label="Author">{{author}}</td><td data-label="Received (UTC)">{{received}}</td><td data-label="Fields">{{fields}}</td><td data-label="State">{{state}}</td>{{#canEdit}}<td data-label="Actions">
        <form method="post" action="/console/data" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}"><input type="hidden" name="set" value="{{entitySet}}"><input type="hidden" name="change" value="{{changeID}}">
        <button type="submit" name="action" value="retryDelivery">Send again<span class="hidden"> {{changeID}}</span></button>
        <button type="submit" name="action" value="discardDelivery" class="danger">Discard…<span class="hidden"> {{changeID}}</span></button>
        </form></td>{{/canEdit}}</tr>
        {{/deliveries}}
        </tbody>
        </table>{{/hasDeliveries}}
        {{/source}}
        {{^source}}<p>None: the set is written by the admin, imports and devices only ('gangway admin data source set' reads it from the company's OData service).</p>{{/source}}
        {{#canEdit}}
        <h2>Put an entity in {{entitySet}}</h2>
        <form method="post" action="/console/data">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}"><input type="hidden" name="set" value="{{entitySet}}">
        <label for="id">ID: a new one adds an entity, an existing one replaces its fields</label>
        <input id="id" name="id" required maxlength="64" autocomplete="off" value="{{entityID}}">
        <label for="fields">Fields, one a line: name = value</label>
        <textarea id="fields" name="fields" rows="5">{{entityFields}}</textarea>
        <button type="submit" name="action" value="put">Put the entity</button>
        </form>
        <h2>What devices may change offline</h2>
        <form method="post" action="/console/data">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}">
        <label for="rules-set">Entity set (a new name adds a set)</label>
        <input id="rules-set" name="set" required maxlength="64" autocomplete="off" value="{{entitySet}}">
        <label for="writableFields">Fields devices may set, separated by commas or spaces</label>
        <input id="writableFields" name="writableFields" maxlength="4096" value="{{writableFields}}" aria-describedby="writableFields-hint">
        <p class="quiet hint" id="writableFields-hint">None, and no creation: devices change nothing in the set.</p>
        <div class="check"><input type="checkbox" id="allowsCreation" name="allowsCreation"{{#allowsCreation}} checked{{/allowsCreation}}> <label for="allowsCreation">Devices may create entities in the set</label></div>
        <button type="submit" name="action" value="rules">Save what devices may change</button>
        </form>
        <h2>Declare the schema of {{entitySet}}</h2>
        <form method="post" action="/console/data">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}"><input type="hidden" name="set" value="{{entitySet}}">
        <label for="schema">Fields, one a line: name:type, then :required and :indexed if so</label>
        <textarea id="schema" name="schema" rows="6" aria-describedby="schema-hint">{{schemaText}}</textarea>
        <p class="quiet hint" id="schema-hint">Types: text, integer, decimal, boolean, date-time (UTC). Adding optional fields, changing indexes, making a field optional or widening a type applies at once; any other change is refused unless every entity of the set fits it.</p>
        <label for="subset">Subset: field = attribute, each user receiving the entities whose field is one of their attribute's values (blank: everyone receives all)</label>
        <input id="subset" name="subset" maxlength="200" autocomplete="off" value="{{subsetText}}">
        <button type="submit" name="action" value="schema">Save the schema</button>
        {{#hasSchema}}<button type="submit" name="action" value="unschema" formnovalidate>Remove the schema</button>{{/hasSchema}}
        </form>
        {{/canEdit}}
        {{/main}}{{/layout}}
        """,
        "logs": """
        {{<layout}}{{$main}}
        <h1>Logs</h1>
        <form method="get" action="/console/logs" role="search">
        <label for="app">App</label>
        <select id="app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/apps}}</select>
        <label for="user">User</label>
        <input id="user" name="user" value="{{user}}" maxlength="128" autocomplete="off">
        <label for="level">From the level</label>
        <select id="level" name="level">{{#levels}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/levels}}</select>
        <label for="since">From (UTC)</label>
        <input id="since" name="since" type="datetime-local" value="{{since}}">
        <label for="until">Before (UTC)</label>
        <input id="until" name="until" type="datetime-local" value="{{until}}">
        <button type="submit">Show</button>
        </form>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#hasEntries}}<table>
        <caption>{{caption}}</caption>
        <thead><tr><th scope="col">Received</th><th scope="col">Made on the device</th><th scope="col">User</th><th scope="col">Device</th><th scope="col">Level</th><th scope="col">Message</th><th scope="col">Source</th></tr></thead>
        <tbody>
        {{#entries}}<tr{{#severity}} class="severity-{{severity}}"{{/severity}}><td data-label="Received">{{received}}</td><td data-label="Made on the device">{{time}}</td><td data-label="User">{{user}}</td><td data-label="Device">{{device}}{{#deviceID}} <span class="quiet">({{deviceID}})</span>{{/deviceID}}</td><td data-label="Level">{{level}}</td><td data-label="Message">{{message}}</td><td data-label="Source">{{source}}</td></tr>
        {{/entries}}
        </tbody>
        </table>{{/hasEntries}}
        {{^hasEntries}}<p>No entry.</p>{{/hasEntries}}
        <p class="links">{{#newest}}<a href="{{newest}}">Newest entries</a>{{/newest}}{{#older}}<a href="{{older}}" rel="next">Older entries</a>{{/older}}</p>
        {{/main}}{{/layout}}
        """,
    ]
}
