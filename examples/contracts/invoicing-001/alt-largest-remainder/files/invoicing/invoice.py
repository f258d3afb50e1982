"""The Invoice aggregate: lines, an optional discount, tax per rate and totals."""

from collections import defaultdict
from datetime import date
from decimal import Decimal

from .lines import InvoiceLine
from .tax import STANDARD_RATE, tax_on


class Invoice:
    def __init__(self, number, customer, currency="EUR", issued=None, discount=None):
        self.number = number
        self.customer = customer
        self.currency = currency
        self.issued = issued or date.today()
        self.discount = discount
        self.lines = []

    def add_line(self, description, quantity, unit_price, tax_rate=STANDARD_RATE):
        line = InvoiceLine(description, quantity, unit_price, tax_rate)
        self.lines.append(line)
        return line

    @property
    def subtotal(self):
        """Sum of the line nets, before discount and tax."""
        return sum((line.net for line in self.lines), Decimal("0.00"))

    @property
    def discount_total(self):
        if self.discount is None or not self.lines:
            return Decimal("0.00")
        return self.discount.amount_for(self.subtotal)

    def net_by_rate(self):
        """Line nets grouped by tax rate, lowest rate first."""
        nets = defaultdict(lambda: Decimal("0.00"))
        for line in self.lines:
            nets[line.tax_rate] += line.net
        return dict(sorted(nets.items()))

    def discount_by_rate(self):
        """The discount shared between the tax rates in proportion to their nets, in whole cents
        that add up to the discount: each rate gets its share rounded down, and the cents left
        go to the rates with the largest remainders."""
        nets = self.net_by_rate()
        cents = int(self.discount_total * 100)
        if not cents:
            return {rate: Decimal("0.00") for rate in nets}
        subtotal = self.subtotal
        exact = {rate: Decimal(cents) * net / subtotal for rate, net in nets.items()}
        shares = {rate: int(x) for rate, x in exact.items()}
        left = cents - sum(shares.values())
        for rate in sorted(exact, key=lambda r: exact[r] - shares[r], reverse=True)[:left]:
            shares[rate] += 1
        return {rate: Decimal(shares[rate]) / 100 for rate in nets}

    def tax_breakdown(self):
        """Tax due per rate on the nets after the discount, lowest rate first."""
        discounts = self.discount_by_rate()
        return {rate: tax_on(net - discounts[rate], rate) for rate, net in self.net_by_rate().items()}

    @property
    def tax_total(self):
        return sum(self.tax_breakdown().values(), Decimal("0.00"))

    @property
    def total(self):
        return self.subtotal - self.discount_total + self.tax_total
