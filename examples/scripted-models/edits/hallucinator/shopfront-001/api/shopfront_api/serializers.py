"""JSON shapes returned by the API. Money is {"amount": <minor units>, "currency": <ISO code>}."""


def serialize_money(amount, currency):
    return {"amount": amount, "currency": currency}


def serialize_product(product):
    sale = product.sale_price_cents
    on_sale = sale is not None and sale < product.price_cents
    return {
        "id": product.id,
        "slug": product.slug,
        "name": product.name,
        "price": serialize_money(product.price_cents, product.currency),
        "sale_price": serialize_money(sale, product.currency) if on_sale else None,
        "in_stock": product.in_stock,
        "image_url": product.image_url,
    }


def serialize_listing(products, page=1, per_page=20):
    """One page of products plus paging information."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page must be positive")
    start = (page - 1) * per_page
    return {
        "products": [serialize_product(p) for p in products[start : start + per_page]],
        "page": page,
        "per_page": per_page,
        "total": len(products),
    }
