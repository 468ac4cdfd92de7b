import Mustache

// The users page is the console's longest and most used: its rows, the page and the
// header answer the template's names directly (MustacheParent) rather than through
// `Mirror`, which reflects a whole value for each name looked up (the page renders in
// half the time). A test holds each answer to the stored property of that name, so a
// property added to one of these types and not here fails it.

extension UsersPage.Row: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "username": username
        case "displayName": displayName
        case "status": status
        case "added": added
        case "toggleAction": toggleAction
        case "toggleTitle": toggleTitle
        case "signsIn": signsIn
        case "sameNameAs": sameNameAs
        case "hasSameName": hasSameName
        default: nil
        }
    }
}

extension UsersPage: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "template": template
        case "title": title
        case "signedIn": signedIn
        case "query": query
        case "users": users
        case "hasUsers": hasUsers
        case "caption": caption
        case "canAct": canAct
        case "formToken": formToken
        case "next": next
        case "firstPage": firstPage
        case "refusal": refusal
        case "notice": notice
        case "newUsername": newUsername
        case "newDisplayName": newDisplayName
        default: nil
        }
    }
}

extension SignedInOperator: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "role": role
        case "formToken": formToken
        case "sections": sections
        default: nil
        }
    }
}

extension SignedInOperator.Section: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "path": path
        case "current": current
        default: nil
        }
    }
}
